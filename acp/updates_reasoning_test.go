package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestReasoningIsAnAgentThoughtChunk: the model's reasoning reaches the
// editor as agent_thought_chunk (after agentls's notice of the window in
// use, a thought of its own line), never in agent_message_chunk, and a
// loaded session replays it the same way (the notice is not replayed).
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
	// The first turn's notice of the window in use comes first, a line of
	// its own (ACP has no status line), then the reasoning.
	if want := "\nthe model's context window: 200000 tokens ([model] context_window)\nWeighing the options first."; thought.String() != want {
		t.Errorf("agent_thought_chunk text = %q, want %q: the notice, then the reasoning", thought.String(), want)
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
