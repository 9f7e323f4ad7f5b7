package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestReasoningIsAnAgentThoughtChunk: the model's reasoning reaches the
// editor as agent_thought_chunk, never in agent_message_chunk, and a
// loaded session replays it the same way.
func TestReasoningIsAnAgentThoughtChunk(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{Thinking: "Weighing the options first.", Text: "Option B."})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "which option?"}}})
	var thought strings.Builder
	for _, u := range out.Updates {
		if u.Update.SessionUpdate == "agent_thought_chunk" {
			thought.WriteString(u.Update.chunkText())
		}
	}
	if thought.String() != "Weighing the options first." {
		t.Errorf("agent_thought_chunk text = %q, want the reasoning", thought.String())
	}
	if got := out.text(); got != "Option B." {
		t.Errorf("agent_message_chunk text = %q, want the answer alone", got)
	}
	var ns newSessionResponse
	json.Unmarshal(out.Steps[1].Result, &ns)
	again := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "load", Cwd: w.root, SessionID: ns.SessionID}}})
	thought.Reset()
	for _, u := range again.Updates {
		if u.Update.SessionUpdate == "agent_thought_chunk" {
			thought.WriteString(u.Update.chunkText())
		}
	}
	if thought.String() != "Weighing the options first." || again.text() != "Option B." {
		t.Errorf("session/load replayed thought %q and text %q", thought.String(), again.text())
	}
}
