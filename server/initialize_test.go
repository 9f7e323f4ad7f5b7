package server

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestInitializeAnswersWithTheProtocolShape(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	res := c.initialize(e.root, caps(false, false, false))

	raw, _ := json.Marshal(res)
	var got struct {
		Capabilities struct {
			TextDocumentSync struct {
				OpenClose bool `json:"openClose"`
				Change    int  `json:"change"`
			} `json:"textDocumentSync"`
			CodeActionProvider     json.RawMessage `json:"codeActionProvider"`
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
			Experimental struct {
				Agentls struct {
					Version int `json:"version"`
				} `json:"agentls"`
			} `json:"experimental"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	caps := got.Capabilities
	if !caps.TextDocumentSync.OpenClose || caps.TextDocumentSync.Change != 2 {
		t.Errorf("textDocumentSync = %+v, want openClose and incremental (2)", caps.TextDocumentSync)
	}
	if len(caps.CodeActionProvider) == 0 || string(caps.CodeActionProvider) == "false" {
		t.Errorf("codeActionProvider = %s, want one", caps.CodeActionProvider)
	}
	listed := map[string]bool{}
	for _, cmd := range caps.ExecuteCommandProvider.Commands {
		listed[cmd] = true
	}
	for _, want := range []string{"agentls.run", "agentls.cancel", "agentls.approve", "agentls.deny", "agentls.newChat",
		"agentls.transcript", "agentls.mcp.list", "agentls.mcp.trust", "agentls.mcp.revoke"} {
		if !listed[want] {
			t.Errorf("executeCommandProvider.commands lacks %s (Neovim runs only listed commands)", want)
		}
	}
	if caps.Experimental.Agentls.Version != 1 {
		t.Errorf("experimental.agentls.version = %d, want 1", caps.Experimental.Agentls.Version)
	}
	if got.ServerInfo.Name != "agentls" || got.ServerInfo.Version != "test" {
		t.Errorf("serverInfo = %+v", got.ServerInfo)
	}
}

func TestLifecycleRules(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	var code jsonrpc2.Code
	err := c.call("agent/tasks", map[string]any{}, nil)
	if w, ok := err.(*jsonrpc2.Error); ok {
		code = w.Code
	}
	if code != jsonrpc2.ServerNotInitialized {
		t.Errorf("agent/tasks before initialize: err %v, want code %d", err, jsonrpc2.ServerNotInitialized)
	}
	c.initialize(e.root, caps(false, false, false))
	err = c.call("agent/nosuchmethod", map[string]any{}, nil)
	if w, ok := err.(*jsonrpc2.Error); !ok || w.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: err %v, want -32601", err)
	}
	c.mustCall("shutdown", nil, nil)
	err = c.call("agent/tasks", map[string]any{}, nil)
	if w, ok := err.(*jsonrpc2.Error); !ok || w.Code != jsonrpc2.InvalidRequest {
		t.Errorf("agent/tasks after shutdown: err %v, want -32600", err)
	}
	c.notify("exit", nil)
	if got := <-c.code; got != 0 {
		t.Errorf("exit after shutdown: Serve returned %d, want 0", got)
	}
	c.code <- 0 // for the cleanup
}

func TestExitWithoutShutdownIsExitCodeOne(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	c.notify("exit", nil)
	if got := <-c.code; got != 1 {
		t.Errorf("exit without shutdown: Serve returned %d, want 1", got)
	}
	c.code <- 1
}
