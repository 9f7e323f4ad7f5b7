package acp

import (
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestPromptEndsWithACPsOwnStopReasons: an answer cut at max_tokens and a
// refusal end session/prompt with ACP's max_tokens and refusal (before:
// end_turn), the refusal's text shown as the agent's message.
func TestPromptEndsWithACPsOwnStopReasons(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{Text: "Half an", StopReason: "max_tokens"}, modeltest.Turn{Refusal: "I can't help with that."})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "write at length"}, {Op: "prompt", Text: "do the forbidden thing"}}})
	for i, want := range []StopReason{StopMaxTokens, StopRefusal} {
		var pr promptResponse
		json.Unmarshal(out.Steps[2+i].Result, &pr)
		if pr.StopReason != want {
			t.Errorf("prompt %d: %s %+v, want stop reason %s", i+1, out.Steps[2+i].Result, out.Steps[2+i].Error, want)
		}
	}
	if got := out.text(); got != "Half anI can't help with that." {
		t.Errorf("agent_message_chunk text = %q", got)
	}
}
