package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// An editor started in the home directory with no folder open: agentls
// serve falls back to its working directory, which is the home. The file
// tools refuse it (the model is told why and what to do) and the user gets
// a warning; nothing of ~/.ssh reaches the model.
func TestServeInTheHomeDirectoryRefusesFileTools(t *testing.T) {
	e := newEnv(t, "")
	home, _ := filepath.EvalSymlinks(filepath.Join(t.TempDir()))
	writeFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "KEYMATERIAL\n")
	writeFile(t, filepath.Join(home, "todo.txt"), "KEYMATERIAL too\n")
	c := startRawIn(t, e, home, "HOME="+home)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":null,"capabilities":{"experimental":{"agentls":{"approvals":true}}}}}`)
	if r := c.reply("1"); r.Error != nil {
		t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
		{ID: "r1", Name: "read_file", Input: `{"path":".ssh/id_ed25519"}`},
		{ID: "r2", Name: "search_text", Input: `{"pattern":"KEY"}`},
	}}, modeltest.Turn{Text: "done"})
	c.send(`{"jsonrpc":"2.0","id":2,"method":"agent/run","params":{"prompt":"read my key"}}`)
	warn := c.next("a warning about the home directory", func(f rawFrame) bool {
		return f.Method == "window/showMessage" && strings.Contains(string(f.Params), "is your home directory")
	})
	if !strings.Contains(string(warn.Params), "open a project folder") {
		t.Errorf("warning %s does not say what to do", warn.Params)
	}
	if r := c.reply("2"); r.Error != nil {
		t.Fatalf("agent/run: %s", r.Error.Message)
	}
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for _, tr := range reqs[1].ToolResults() {
		if !strings.Contains(tr.Content, "is your home directory") || !strings.Contains(tr.Content, "open a project folder") {
			t.Errorf("%s: %q, want the refusal", tr.ToolUseID, tr.Content)
		}
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "KEYMATERIAL") {
			t.Errorf("model request %d carries the key", i+1)
		}
	}
}

// A secret file inside the workspace, reached through a link with an
// innocent name, is read only after a card (kind "read") is allowed.
func TestServeAsksBeforeReadingASecretFileThroughALink(t *testing.T) {
	e := newEnv(t, "")
	writeFile(t, filepath.Join(e.root, ".aws", "credentials"), "KEYMATERIAL\n")
	if err := os.Symlink(filepath.Join(".aws", "credentials"), filepath.Join(e.root, "readme.txt")); err != nil {
		t.Fatal(err)
	}
	c := startRaw(t, e)
	c.initialize(e.root)
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "r1", Name: "read_file", Input: `{"path":"readme.txt"}`}}},
		modeltest.Turn{Text: "done"})
	c.send(`{"jsonrpc":"2.0","id":2,"method":"agent/run","params":{"prompt":"read the readme"}}`)
	card := c.next("the read card", func(f rawFrame) bool { return f.Method == "agent/requestApproval" })
	var a struct {
		Kind, Tool, Title, Detail string
	}
	if err := json.Unmarshal(card.Params, &a); err != nil {
		t.Fatal(err)
	}
	if a.Kind != "read" || a.Tool != "read_file" || !strings.Contains(a.Detail, filepath.Join(e.root, ".aws", "credentials")) || !strings.Contains(a.Detail, "holds secrets") && !strings.Contains(a.Detail, "usually holds secrets") {
		t.Errorf("card = %+v, want a read card naming where the link leads and why it asks", a)
	}
	if strings.Contains(a.Detail, "KEYMATERIAL") {
		t.Error("the card shows the secret before it is allowed")
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(card.ID) + `,"result":{"outcome":"selected","optionId":"allow_once"}}`)
	if r := c.reply("2"); r.Error != nil {
		t.Fatalf("agent/run: %s", r.Error.Message)
	}
	trs := e.model.Requests()[1].ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Content, "KEYMATERIAL") {
		t.Errorf("after allow_once the result is %+v, want the file's text", trs)
	}
}

// A workspace folder that holds the home directory (an editor opened on
// /home) is refused as the home itself is: the file tools answer why and
// what to do, the user gets the warning, and nothing of the home folder
// reaches the model.
func TestServeRefusesAWorkspaceFolderHoldingTheHome(t *testing.T) {
	e := newEnv(t, "")
	home := filepath.Join(e.root, "home", "me")
	writeFile(t, filepath.Join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=KEYMATERIAL\n")
	writeFile(t, filepath.Join(home, ".bash_history"), "export TOKEN=KEYMATERIAL\n")
	c := startRawIn(t, e, e.root, "HOME="+home)
	c.initialize(e.root)
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
		{ID: "r1", Name: "read_file", Input: `{"path":"home/me/.bash_history"}`},
		{ID: "r2", Name: "search_text", Input: `{"pattern":"KEY"}`},
	}}, modeltest.Turn{Text: "done"})
	c.send(`{"jsonrpc":"2.0","id":2,"method":"agent/run","params":{"prompt":"read my history"}}`)
	c.next("a warning about the home directory", func(f rawFrame) bool {
		return f.Method == "window/showMessage" && strings.Contains(string(f.Params), "holds your home directory")
	})
	if r := c.reply("2"); r.Error != nil {
		t.Fatalf("agent/run: %s", r.Error.Message)
	}
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for _, tr := range reqs[1].ToolResults() {
		if !strings.Contains(tr.Content, "holds your home directory") || !strings.Contains(tr.Content, "open a project folder") {
			t.Errorf("%s: %q, want the refusal", tr.ToolUseID, tr.Content)
		}
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "KEYMATERIAL") {
			t.Errorf("model request %d carries the home folder's secret", i+1)
		}
	}
}
