package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

func TestResultLineIsOneLine(t *testing.T) {
	tests := []struct {
		name string
		r    wire.RunResult
		want string
	}{
		{"a finished turn shows its text's first line", wire.RunResult{StopReason: "end_turn", Text: "\n  Done: 3 files\nmore detail\n"}, "Done: 3 files"},
		{"a finished turn without text says done", wire.RunResult{StopReason: "end_turn"}, "done"},
		{"an error shows its first line", wire.RunResult{StopReason: "error", Error: "no model configured: set X\n(tried Y)"}, "error: no model configured: set X"},
		{"a cancelled turn says so", wire.RunResult{StopReason: "cancelled"}, "cancelled"},
		{"max_iterations with a reason", wire.RunResult{StopReason: "max_iterations", Error: "stopped after 50 tool turns\nraise it"}, "max_iterations: stopped after 50 tool turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resultLine(tt.r)
			if got != tt.want || strings.Contains(got, "\n") {
				t.Errorf("resultLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestProgressReportsReasoningOnce: a model reasoning before it answers is
// one "reasoning" report however many deltas it streams, so a client that
// shows only $/progress (Helix) knows why the answer is slow to come.
func TestProgressReportsReasoningOnce(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(true, false, false))
	e.model.Script(modeltest.Turn{Thinking: "Many words of reasoning before the answer.", Text: "ok"})
	res, errc := c.runAsync(map[string]any{"prompt": "think first"})
	if r := c.await(res, errc); r.StopReason != "end_turn" {
		t.Fatalf("result = %+v", r)
	}
	var reports []string
	for _, m := range c.messages("$/progress") {
		var p struct{ Value progressValue }
		_ = json.Unmarshal(m.Params, &p)
		if p.Value.Kind == "report" {
			reports = append(reports, p.Value.Message)
		}
	}
	// The first is agentls's notice of the window in use (this client
	// takes no agent/event); then one reasoning report.
	if strings.Join(reports, "|") != "the model's context window: 200000 tokens ([model] context_window)|reasoning" {
		t.Errorf("progress reports %q, want the window notice, then one \"reasoning\"", reports)
	}
}
