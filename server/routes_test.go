package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

// TestEveryDeclaredMethodIsRouted holds the routes to package wire's
// declarations: every agent/* request and agentls.* command wire declares
// has exactly one route, and nothing is routed under the agent/ namespace
// or as a command that wire does not declare.
func TestEveryDeclaredMethodIsRouted(t *testing.T) {
	s := New(Options{})
	for _, tt := range []struct {
		dir    wire.Direction
		routes []route
		table  map[string]requestHandler
	}{
		{wire.ClientRequest, s.agentRoutes(), s.requests},
		{wire.CommandRequest, s.commandRoutes(), s.commands},
	} {
		declared := map[string]bool{}
		for _, m := range wire.MethodsOf(tt.dir) {
			declared[m.Name] = true
			if tt.table[m.Name] == nil {
				t.Errorf("%s (%s) is declared but has no route", m.Name, m.Doc)
			}
		}
		routed := map[string]bool{}
		for _, r := range tt.routes {
			if routed[r.method] {
				t.Errorf("%s is routed twice", r.method)
			}
			routed[r.method] = true
			if !declared[r.method] {
				t.Errorf("%s is routed but package wire does not declare it", r.method)
			}
		}
		if len(declared) < 10 {
			t.Errorf("wire declares %d methods of direction %d, want the whole contract", len(declared), tt.dir)
		}
	}
	if got, want := len(commandNames), len(wire.MethodsOf(wire.CommandRequest)); got != want {
		t.Errorf("executeCommandProvider announces %d commands, wire declares %d", got, want)
	}
}

// Every notification agentls acts on decodes into its params type through
// its route: params of the wrong shape are said in a warning that names
// the notification and what was expected, and the connection goes on; a
// well-formed one after them is handled (the document it opens is the one
// agent/run's selection reads).
func TestNotificationsWithBadParamsAreSaidAndSurvived(t *testing.T) {
	e := newEnv(t, "")
	c := startRaw(t, e)
	c.initialize(e.root)
	for _, tt := range []struct{ method, params, expected string }{
		{"textDocument/didOpen", `{"textDocument":5}`, "expected {textDocument: {uri, version, text}}"},
		{"textDocument/didChange", `{"textDocument":{"uri":7}}`, "expected {textDocument: {uri, version}, contentChanges: [{range?, text}]}"},
		{"textDocument/didClose", `[]`, "expected {textDocument: {uri}}"},
		{"window/workDoneProgress/cancel", `[1]`, "expected {token}"},
		{"workspace/didChangeWorkspaceFolders", `{"event":{"added":{}}}`, "expected {event: {added: [{uri, name}], removed: [...]}}"},
	} {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, tt.method, tt.params))
		f := c.next("a warning for "+tt.method, func(f rawFrame) bool {
			var p struct{ Message string }
			return f.Method == "window/logMessage" && json.Unmarshal(f.Params, &p) == nil && strings.Contains(p.Message, tt.method+": bad params")
		})
		var p struct{ Message string }
		json.Unmarshal(f.Params, &p)
		if !strings.Contains(p.Message, tt.expected) {
			t.Errorf("%s with params %s: warning %q, want it to say %q", tt.method, tt.params, p.Message, tt.expected)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	if r := c.reply("2"); r.Error != nil {
		t.Fatalf("shutdown after the bad notifications: %s", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.waitExit(); code != 0 {
		t.Errorf("exit after shutdown: code %d, want 0", code)
	}
}
