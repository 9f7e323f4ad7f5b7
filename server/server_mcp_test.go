package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// fsServer is TOML for a server-filesystem entry serving dir; dir is unique
// per test, so it marks the server's processes in the process table.
func fsServer(t *testing.T, name, dir string) string {
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("[mcp.servers.%s]\ncommand = %q\nargs = [%q]\n", name, bin, dir)
}

type serverRow struct {
	Name, Origin, State, Error, StderrTail, Sandbox string
	Tools                                           []struct{ Name, Policy string }
}

func (c *testClient) servers() map[string]serverRow {
	c.t.Helper()
	var res struct{ Servers []serverRow }
	c.mustCall("agent/mcp/servers", map[string]any{}, &res)
	out := map[string]serverRow{}
	for _, s := range res.Servers {
		out[s.Name] = s
	}
	return out
}

func (c *testClient) waitState(name, state string) serverRow {
	c.t.Helper()
	var row serverRow
	waitUntil(c.t, name+" "+state, func() bool {
		row = c.servers()[name]
		return row.State == state
	})
	return row
}

func TestInitializeDoesNotWaitForServersAndShutdownReapsThem(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "agentls-slow-marker")
	files := filepath.Join(t.TempDir(), "fs-marker")
	// "slow" never speaks MCP: it stays connecting until its connect timeout.
	extra := fmt.Sprintf("[mcp.servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", \"sleep 3600\", %q]\nconnect_timeout = \"10m\"\n\n%s", marker, fsServer(t, "fs", files))
	e := newEnv(t, extra)
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	if got := c.servers()["slow"].State; got != "connecting" {
		t.Errorf("slow server state after initialize = %q, want connecting (nothing waits for it)", got)
	}
	row := c.waitState("fs", "connected")
	if len(row.Tools) == 0 || row.Tools[0].Policy != "ask" {
		t.Errorf("fs tools = %+v, want tools that ask (not allow-listed)", row.Tools)
	}
	waitUntil(t, "the slow server's process", func() bool { return len(testenv.ProcessesMatching(marker)) > 0 })
	if len(testenv.ProcessesMatching(files)) == 0 {
		t.Fatal("no process of the fs server found")
	}
	c.mustCall("shutdown", nil, nil)
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
	testenv.WaitNoProcesses(t, files, 10*time.Second)
	c.notify("exit", nil)
}

func TestConnectionLossReapsServers(t *testing.T) {
	files := filepath.Join(t.TempDir(), "fs-eof-marker")
	e := newEnv(t, fsServer(t, "fs", files))
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	c.waitState("fs", "connected")
	c.conn.Close() // the editor's end of stdin closes
	<-c.server.ctx.Done()
	testenv.WaitNoProcesses(t, files, 10*time.Second)
}

func TestWorkspaceServerStartsOnlyAfterLaunchApproval(t *testing.T) {
	for _, allow := range []bool{true, false} {
		name := "approved: it starts"
		if !allow {
			name = "denied: it never starts"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, "")
			files := filepath.Join(t.TempDir(), "repo-fs-marker")
			writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
			c := e.start(t)
			asked, release := make(chan struct{}, 1), make(chan string, 1)
			c.setAnswer(holdApprovals(c, asked, release))
			c.initialize(e.root, caps(true, false, false))
			<-asked
			card := c.waitFor("the launch card", method("agent/requestApproval"))
			var a map[string]any
			_ = json.Unmarshal(card.Params, &a)
			if a["kind"] != "mcp_launch" || !strings.Contains(fmt.Sprint(a["detail"]), files) {
				t.Errorf("launch card = %s, want kind mcp_launch showing the literal command line", card.Params)
			}
			if got := c.servers()["repofs"].State; got != "needs_approval" {
				t.Errorf("state while the card waits = %q, want needs_approval", got)
			}
			if n := len(testenv.ProcessesMatching(files)); n != 0 {
				t.Fatalf("%d processes of the workspace server run before approval", n)
			}
			if allow {
				release <- "allow_once"
				c.waitState("repofs", "connected")
				return
			}
			release <- "reject_once"
			c.waitFor("the refusal", func(m message) bool {
				return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "repofs") && strings.Contains(string(m.Params), "not started")
			})
			if got := c.servers()["repofs"].State; got != "needs_approval" {
				t.Errorf("state after denial = %q, want needs_approval", got)
			}
			if n := len(testenv.ProcessesMatching(files)); n != 0 {
				t.Errorf("%d processes of the denied workspace server", n)
			}
		})
	}
}

func TestMCPToolCallThroughCodeActionApproval(t *testing.T) {
	files := filepath.Join(t.TempDir(), "fs-call-marker")
	e := newEnv(t, fsServer(t, "fs", files))
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	c.waitState("fs", "connected")
	// The reference server asks for the roots after initialized, on its
	// own time; until it has them it allows its command-line folder. Its
	// stderr says when it switched.
	waitUntil(t, "the filesystem server to take its MCP roots", func() bool {
		return strings.Contains(c.servers()["fs"].StderrTail, "Updated allowed directories from MCP roots")
	})
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__list_allowed_directories", Input: `{}`}}},
		modeltest.Turn{Text: "listed"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "list", "textDocument": map[string]string{"uri": doc}})
	approveViaCodeAction(t, c, doc)
	if r := c.await(res, errc); r.StopReason != "end_turn" || r.Text != "listed" {
		t.Fatalf("result = %+v", r)
	}
	// agentls announces roots, and the reference filesystem server then
	// allows the workspace folders instead of its command-line folder.
	if got := toolResult(t, e.model); got.IsError || !strings.Contains(got.Content, "Allowed directories:") || !strings.Contains(got.Content, e.root) {
		t.Errorf("tool result = %+v, want the real server's answer naming the workspace root %s (its MCP root)", got, e.root)
	}
}

func TestMCPListCommandWritesTheReport(t *testing.T) {
	files := filepath.Join(t.TempDir(), "fs-list-marker")
	e := newEnv(t, fsServer(t, "fs", files))
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	c.waitState("fs", "connected")
	var res struct {
		Servers []serverRow
		Path    string
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.mcp.list"}, &res)
	if len(res.Servers) != 1 || res.Servers[0].Name != "fs" {
		t.Errorf("servers = %+v", res.Servers)
	}
	b, err := os.ReadFile(res.Path)
	// server-filesystem is on the v1 TypeScript SDK: MCP 2025-11-25.
	if err != nil || !strings.Contains(string(b), "fs__list_allowed_directories") || !strings.Contains(string(b), files) ||
		!strings.Contains(string(b), "- speaks: MCP 2025-11-25 over stdio\n") {
		t.Errorf("report %s: %v\n%s", res.Path, err, b)
	}
}

func TestLaunchCardThroughCodeActionsReachesADocumentOpenedLater(t *testing.T) {
	e := newEnv(t, "")
	files := filepath.Join(t.TempDir(), "repo-fs-actions-marker")
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false)) // released Helix: no way to ask
	// No document is open yet: the message alone must say what would run
	// and how to answer.
	msg := c.waitFor("the approval message", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "approval needed")
	})
	var shown struct{ Message string }
	_ = json.Unmarshal(msg.Params, &shown)
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	for _, want := range []string{"repofs", bin, files, "agentls: Trust and start", "open any file", "agentls.approve", "agentls.deny"} {
		if !strings.Contains(shown.Message, want) {
			t.Errorf("the code-action-card message %q does not contain %q", shown.Message, want)
		}
	}
	if first, _, _ := strings.Cut(shown.Message, "\n"); !strings.Contains(first, bin) {
		t.Errorf("the message's first line %q lacks the command line (Helix shows one line)", first)
	}
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	c.waitFor("the launch card's diagnostic, with its command line, on the document opened later", func(m message) bool {
		return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), doc) &&
			strings.Contains(string(m.Params), "repofs") && strings.Contains(string(m.Params), files)
	})
	var actions []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": doc},
		"range":   map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
		"context": map[string]any{"diagnostics": []any{}, "triggerKind": 2}}, &actions)
	options := 2 // allow and deny; where the kernel confines, allow with network and unconfined too
	if sandbox.Supported().Filesystem {
		options = 4
	}
	if len(actions) != options || actions[0].Command.Command != "agentls.approve" || actions[0].Command.Arguments[1] != "allow_once" {
		t.Fatalf("automatic code actions while the card waits = %+v, want only its %d options", actions, options)
	}
	if n := len(testenv.ProcessesMatching(files)); n != 0 {
		t.Fatalf("%d processes of the workspace server before approval", n)
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.approve", "arguments": []any{}}, nil)
	c.waitState("repofs", "connected")
	c.waitFor("the launch card's diagnostic cleared once resolved", func(m message) bool {
		return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), doc) &&
			strings.Contains(string(m.Params), `"diagnostics":[]`)
	})
}

func TestWarningsGoToTheLog(t *testing.T) {
	e := newEnv(t, "[mcp.servers.broken]\ncommand = \"agentls-no-such-program\"\n\n[mcp.servers.typo]\ncommand = \"x\"\ntiemout = \"5s\"\n\n"+
		"[mcp.servers.leaky]\ncommand = \"sh\"\nargs = [\"-c\", \"echo using ghp_abcdefghijklmnopqrstuvwxyz0123 >&2; exit 3\"]\n")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	c.waitFor("the config warning with file:line", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "tiemout") &&
			strings.Contains(string(m.Params), e.config+":") && strings.Contains(string(m.Params), `"type":2`)
	})
	c.waitFor("the failed server", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "MCP server 'broken' failed") &&
			strings.Contains(string(m.Params), `"type":2`)
	})
	leak := c.waitFor("the leaky server's failure", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "MCP server 'leaky' failed")
	})
	if strings.Contains(string(leak.Params), "ghp_abc") || !strings.Contains(string(leak.Params), "[REDACTED]") {
		t.Errorf("the log shows %s: the token on the server's stderr must be redacted", leak.Params)
	}
	if n := len(c.messages("window/showMessage")); n != 0 {
		t.Errorf("warnings popped up %d times: they belong in the log", n)
	}
}

func TestServerManagementMethods(t *testing.T) {
	e := newEnv(t, "")
	files := filepath.Join(t.TempDir(), "repo-fs-manage-marker")
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
	c := e.start(t)
	c.setAnswer(answerWith("agent/requestApproval", map[string]any{"outcome": "selected", "optionId": "allow_once"}))
	c.initialize(e.root, caps(true, false, false))
	c.waitState("repofs", "connected")

	var restarted struct{ State string }
	c.mustCall("agent/mcp/restart", map[string]string{"server": "repofs"}, &restarted)
	if restarted.State != "connecting" && restarted.State != "connected" {
		t.Errorf("restart state = %q", restarted.State)
	}
	c.waitState("repofs", "connected")

	var revoked struct{ Revoked []string }
	c.mustCall("agent/mcp/revoke", map[string]string{"server": "repofs"}, &revoked)
	if len(revoked.Revoked) != 1 || revoked.Revoked[0] != "repofs" {
		t.Errorf("revoked = %v", revoked.Revoked)
	}
	if got := c.servers()["repofs"].State; got != "connected" {
		t.Errorf("revoking killed the running server: state %q", got)
	}
	err := c.call("agent/mcp/trust", map[string]string{"server": "nosuch"}, nil)
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("trusting an unknown server: %v, want an error naming it", err)
	}

	e.model.Script(modeltest.Turn{Text: "first"}, modeltest.Turn{Text: "second"})
	var first runResult
	c.mustCall("agent/run", map[string]string{"prompt": "one"}, &first)
	var second runResult
	c.mustCall("agent/run", map[string]string{"prompt": "two", "sessionId": first.SessionID}, &second)
	if second.SessionID != first.SessionID {
		t.Errorf("sessionId %q did not continue %q", second.SessionID, first.SessionID)
	}
	var sessions struct {
		Sessions []struct {
			SessionID string
			Turns     int
		}
	}
	c.mustCall("agent/sessions", map[string]any{}, &sessions)
	if len(sessions.Sessions) != 1 || sessions.Sessions[0].SessionID != first.SessionID || sessions.Sessions[0].Turns != 2 {
		t.Errorf("sessions = %+v, want the one session with 2 turns", sessions.Sessions)
	}
	var chat struct{ SessionID string }
	c.mustCall("agent/newChat", map[string]string{"sessionId": first.SessionID}, &chat)
	if chat.SessionID == "" || chat.SessionID == first.SessionID {
		t.Errorf("newChat = %q", chat.SessionID)
	}
}

// TestLaunchCardChoiceThroughRequestApproval: a repository's server whose
// entry says nothing of its confinement gets a launch card
// (agent/requestApproval) offering allow_once (confined, no network),
// allow_network and allow_unconfined, all of kind allow_once, so a client
// that only knows allow_once still works. The client picks allow_network:
// the server starts, and the server list says it runs with the network
// because that was chosen on its card.
func TestLaunchCardChoiceThroughRequestApproval(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	e := newEnv(t, "")
	files := filepath.Join(t.TempDir(), "repo-choice-marker")
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
	c := e.start(t)
	asked, release := make(chan struct{}, 1), make(chan string, 1)
	c.setAnswer(holdApprovals(c, asked, release))
	c.initialize(e.root, caps(true, false, false))
	<-asked
	card := c.waitFor("the launch card", method("agent/requestApproval"))
	var a wire.Approval
	if err := json.Unmarshal(card.Params, &a); err != nil {
		t.Fatal(err)
	}
	var opts []string
	for _, o := range a.Options {
		opts = append(opts, o.OptionID+"/"+string(o.Kind))
	}
	if got := strings.Join(opts, " "); a.Kind != wire.ApprovalMCPLaunch || got != "allow_once/allow_once allow_network/allow_once allow_unconfined/allow_once reject_once/reject_once" {
		t.Errorf("launch card %s options %s", a.Kind, got)
	}
	if !strings.Contains(a.Detail, "allow with network: confined by the kernel") {
		t.Errorf("the card does not say what allow with network lets it touch:\n%s", a.Detail)
	}
	release <- wire.OptionLaunchNetwork
	row := c.waitState("repofs", "connected")
	if !strings.HasPrefix(row.Sandbox, "started as chosen on its launch card, allow with network: confined by the kernel") || !strings.Contains(row.Sandbox, "network: any") {
		t.Errorf("the server list says %q", row.Sandbox)
	}
	c.mustCall("shutdown", nil, nil)
	testenv.WaitNoProcesses(t, files, 10*time.Second)
	c.notify("exit", nil)
}
