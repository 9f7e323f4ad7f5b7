package acp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestPromptsAreSlashCommands: through the real ACP SDK client (every
// message checked against the schema), the real server-everything's
// prompts are offered as /everything.PROMPT commands once it connects
// (with an input hint for those with arguments); a prompt whose text starts
// with one runs it after its prompts/get permission, the rest as its
// arguments, and the model gets the prompt's message as the user's turn;
// a missing argument is answered with what the prompt takes, without a
// turn.
func TestPromptsAreSlashCommands(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	w := newWorld(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n", everything))
	w.model.Script(modeltest.Turn{Text: "weather said"}, modeltest.Turn{Text: "simple said"})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "waitCommand", Text: "everything.args-prompt"},
		{Op: "prompt", Text: "/everything.args-prompt city=Lyon state=\"Auvergne Rhône\"", Answers: []string{"allow_once"}},
		{Op: "prompt", Text: "/everything.args-prompt"},
		{Op: "prompt", Text: "/everything.simple-prompt", Answers: []string{"allow_once"}},
	}})
	for i, s := range out.Steps {
		if s.Error != nil {
			t.Fatalf("step %d (%s): %+v", i, s.Op, s.Error)
		}
	}
	var offered []availableCommand
	for _, u := range out.Updates {
		if u.Update.SessionUpdate == updateAvailableCommands {
			offered = u.Update.AvailableCommands
		}
	}
	byName := map[string]availableCommand{}
	for _, c := range offered {
		byName[c.Name] = c
	}
	if c := byName["everything.args-prompt"]; c.Input == nil || c.Input.Hint != "city=... [state=...]" || !strings.Contains(c.Description, "everything") {
		t.Errorf("args-prompt's command is %+v, want an input hint naming its arguments", c)
	}
	if c, ok := byName["everything.simple-prompt"]; !ok || c.Input != nil {
		t.Errorf("simple-prompt's command is %+v (offered: %v), want one without input", c, offered)
	}
	if _, ok := byName["mcp"]; !ok {
		t.Errorf("the built-in commands are no longer offered: %v", offered)
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2 (the prompt without its argument runs no turn)", len(reqs))
	}
	if got := reqs[0].LastUserText(); got != "What's weather in Lyon, Auvergne Rhône?" {
		t.Errorf("the first turn's user text is %q, want args-prompt's message with both arguments", got)
	}
	if got := reqs[1].LastUserText(); got != "This is a simple prompt without arguments." {
		t.Errorf("the last turn's user text is %q, want simple-prompt's message", got)
	}
	if len(out.Permissions) != 2 {
		t.Fatalf("want a prompts/get permission per run, got %d", len(out.Permissions))
	}
	for i, want := range []string{"everything · prompts/get args-prompt", "everything · prompts/get simple-prompt"} {
		card := out.Permissions[i].ToolCall.contents()
		if len(card) == 0 || card[0].Content == nil || !strings.Contains(card[0].Content.Text, want) {
			t.Errorf("permission %d shows %+v, want %q", i, card, want)
		}
	}
	if card := out.Permissions[0].ToolCall.contents(); len(card) == 0 || card[0].Content == nil || !strings.Contains(card[0].Content.Text, "Auvergne Rhône") {
		t.Errorf("the permission does not show the arguments: %+v", card)
	}
	if !strings.Contains(out.text(), "needs city") {
		t.Errorf("the prompt without its argument was not answered with what it takes: %q", out.text())
	}
}
