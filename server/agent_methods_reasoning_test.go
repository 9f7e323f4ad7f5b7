package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// lspTurns is what turns_client.js saw: agent/run's results and every
// agent/event.
type lspTurns struct {
	Results []wire.RunResult `json:"results"`
	Events  []wire.Event     `json:"events"`
}

// runTurns runs prompts in one session through Microsoft's LSP client
// library against `agentls serve`.
func runTurns(t *testing.T, e *env, prompts ...string) lspTurns {
	t.Helper()
	out := filepath.Join(t.TempDir(), "turns.json")
	p, _ := json.Marshal(prompts)
	runNodeLSP(t, e, "turns_client.js", "PROMPTS="+string(p), "OUT="+out)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got lspTurns
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return got
}

// deltas joins the deltas of the events of one type.
func (l lspTurns) deltas(typ wire.EventType) string {
	var b strings.Builder
	for _, e := range l.Events {
		if e.Type == typ {
			b.WriteString(e.Delta)
		}
	}
	return b.String()
}

// TestLSPReasoningModelsToolTurns: a DeepSeek- and a Gemini-3-shaped tool
// turn complete through a real LSP client, a second turn in the same
// session too; the reasoning comes as reasoning events, never as text.
func TestLSPReasoningModelsToolTurns(t *testing.T) {
	for _, v := range []modeltest.Vendor{modeltest.DeepSeek, modeltest.Gemini} {
		t.Run(string(v), func(t *testing.T) {
			e := newEnv(t, "")
			e.model.SetVendor(v)
			if err := os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			read := modeltest.ToolCall{Name: "read_file", Input: `{"path":"a.txt"}`}
			e.model.Script(
				modeltest.Turn{Thinking: "Reading a.txt first.", ToolCalls: []modeltest.ToolCall{read}},
				modeltest.Turn{Text: "It says hello."},
				modeltest.Turn{Thinking: "Once more.", ToolCalls: []modeltest.ToolCall{read}},
				modeltest.Turn{Text: "Still hello."},
			)
			got := runTurns(t, e, "what does a.txt say?", "read it again")
			for i, want := range []string{"It says hello.", "Still hello."} {
				if r := got.Results[i]; r.StopReason != wire.StopEndTurn || r.Text != want {
					t.Errorf("turn %d: %+v, want end_turn with %q", i+1, r, want)
				}
			}
			if r := got.deltas(wire.EventReasoning); r != "Reading a.txt first.Once more." {
				t.Errorf("reasoning events %q", r)
			}
			if txt := got.deltas(wire.EventText); strings.Contains(txt, "Reading") {
				t.Errorf("the reasoning reached text events: %q", txt)
			}
		})
	}
}
