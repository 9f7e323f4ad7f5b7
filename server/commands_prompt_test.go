package server

import (
	"fmt"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestNodeClientRunsMCPPrompts: `agentls serve` driven by Microsoft's LSP
// client from Node, with the real server-everything: its prompts are
// listed, the one that needs no argument is a code action, agentls.prompt
// runs the one with an argument (and refuses it without), each after its
// prompts/get card; the model gets each prompt's message as the user's
// turn.
func TestNodeClientRunsMCPPrompts(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	e := newEnv(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n", everything))
	e.model.Script(modeltest.Turn{Text: "simple done"}, modeltest.Turn{Text: "weather done"})
	runNodeLSP(t, e, "prompt_client.js", "SERVER=everything", "CITY=Lyon")
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if got := reqs[0].LastUserText(); got != "This is a simple prompt without arguments." {
		t.Errorf("the first task's user turn is %q, want simple-prompt's message", got)
	}
	if got := reqs[1].LastUserText(); got != "What's weather in Lyon?" {
		t.Errorf("the second task's user turn is %q, want args-prompt's message with the city", got)
	}
}
