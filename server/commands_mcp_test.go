package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func TestMCPTrustAndRevokeThroughMethodsAndCommands(t *testing.T) {
	for _, via := range []string{"agent/mcp methods", "agentls.mcp commands"} {
		t.Run(via, func(t *testing.T) {
			e := newEnv(t, "")
			files := filepath.Join(t.TempDir(), "repo-fs-trust-marker")
			writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
			c := e.start(t)
			c.initialize(e.root, caps(true, false, false)) // the card at start is denied (-32601)
			c.waitFor("the refusal at start", func(m message) bool {
				return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "'repofs' not started")
			})
			c.setAnswer(answerWith("agent/requestApproval", map[string]any{"outcome": "selected", "optionId": "allow_once"}))
			var trusted struct{ State string }
			if via == "agent/mcp methods" {
				c.mustCall("agent/mcp/trust", map[string]string{"server": "repofs"}, &trusted)
				if trusted.State != "connected" && trusted.State != "connecting" {
					t.Errorf("agent/mcp/trust = %q, want the started server's state", trusted.State)
				}
			} else {
				// The command answers at once with the state now; the card
				// goes on in the background.
				c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.mcp.trust", "arguments": []any{"repofs"}}, &trusted)
				if trusted.State != "needs_approval" {
					t.Errorf("agentls.mcp.trust = %q, want the state before the card (needs_approval)", trusted.State)
				}
			}
			c.waitState("repofs", "connected")
			if len(testenv.ProcessesMatching(files)) == 0 {
				t.Fatal("no process of the trusted server")
			}

			var revoked struct{ Revoked []string }
			if via == "agent/mcp methods" {
				c.mustCall("agent/mcp/revoke", map[string]bool{"all": true}, &revoked)
			} else {
				c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.mcp.revoke", "arguments": []any{}}, &revoked)
			}
			if strings.Join(revoked.Revoked, ",") != "repofs" {
				t.Errorf("revoking all = %v, want [repofs]", revoked.Revoked)
			}
			if got := c.servers()["repofs"].State; got != "connected" || len(testenv.ProcessesMatching(files)) == 0 {
				t.Errorf("revoke stopped the running server (state %q): it must never kill", got)
			}
		})
	}
}

func TestMCPListOpensTheReportUnderTheStateDir(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.setAnswer(answerWith("window/showDocument", map[string]any{"success": true}))
	c.initialize(e.root, caps(false, false, false))
	var res struct {
		Servers []serverRow
		Path    string
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.mcp.list"}, &res)
	if res.Servers == nil {
		t.Errorf("agentls.mcp.list returned servers = null, want a list")
	}
	if !strings.HasPrefix(res.Path, e.state+string(filepath.Separator)) {
		t.Errorf("report at %q, want it under the state dir %s (never the workspace)", res.Path, e.state)
	}
	show := c.waitFor("window/showDocument", method("window/showDocument"))
	if !strings.Contains(string(show.Params), pathToURI(res.Path)) {
		t.Errorf("showDocument %s, want the report %s", show.Params, res.Path)
	}
}

func TestTranscriptOfAnUnknownSessionIsAnError(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.setAnswer(answerWith("window/showDocument", map[string]any{"success": true}))
	c.initialize(e.root, caps(false, false, false))
	err := c.call("workspace/executeCommand", map[string]any{"command": "agentls.transcript", "arguments": []any{"nosuch"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "nosuch") || !strings.Contains(err.Error(), "agent/sessions") {
		t.Errorf("transcript of an unknown session: %v, want an error naming it and where sessions are listed", err)
	}
	if n := len(c.messages("window/showDocument")); n != 0 {
		t.Errorf("opened %d documents for a session that has no transcript", n)
	}
}
