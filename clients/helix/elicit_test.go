package helix_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// An MCP server's question in Helix: the fault server (a workspace server,
// trusted by code action) asks a one-choice form while its tool runs; the
// question arrives as code actions, one per answer, naming the server, and
// the one picked reaches the server.
func TestHelixAnswersAnMCPServersQuestionByCodeAction(t *testing.T) {
	fault := testenv.GoBinary(t, "./internal/faultserver")
	question := `{"message":"Pick a colour","schema":{"type":"object","properties":{"color":{"type":"string","title":"Colour","enum":["r","g"],"enumNames":["Red","Green"]}},"required":["color"]}}`
	w := startHelixWith(t, map[string]string{
		"main.go":              original,
		".agentls/config.toml": "[mcp.servers.q]\ncommand = \"" + fault + "\"\nargs = [\"-marker\", \"{{ws}}\"]\n",
	},
		modeltest.Turn{Text: "Asking.", ToolCalls: []modeltest.ToolCall{{ID: "call_q", Name: "q__ask", Input: question}}},
		modeltest.Turn{Text: "Answered."},
	)
	scr := w.scr
	scr.waitFor(regexp.MustCompile(`approval needed`), 20*time.Second, "the launch card's message")
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Trust and start`), 30*time.Second)
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Allow once: q · ask`), 30*time.Second)
	picked := scr.pickCodeAction(regexp.MustCompile(`^agentls: Colour: Green \(g\): q asks: Pick a colour`), 30*time.Second)
	t.Logf("picked %q", picked)
	reqs := waitRequests(t, w.model, 2, 30*time.Second)
	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].Content != `{"action":"accept","content":{"color":"g"}}` {
		t.Fatalf("tool results %+v", results)
	}
	if !strings.Contains(scr.capture(), "agentls") {
		t.Logf("screen:\n%s", scr.capture())
	}
	quit(t, scr)
}
