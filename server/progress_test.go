package server

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

func TestResultLineIsOneLine(t *testing.T) {
	tests := []struct {
		name string
		r    agent.Result
		want string
	}{
		{"a finished turn shows its text's first line", agent.Result{StopReason: "end_turn", Text: "\n  Done: 3 files\nmore detail\n"}, "Done: 3 files"},
		{"a finished turn without text says done", agent.Result{StopReason: "end_turn"}, "done"},
		{"an error shows its first line", agent.Result{StopReason: "error", Error: "no model configured: set X\n(tried Y)"}, "error: no model configured: set X"},
		{"a cancelled turn says so", agent.Result{StopReason: "cancelled"}, "cancelled"},
		{"max_iterations with a reason", agent.Result{StopReason: "max_iterations", Error: "stopped after 50 tool turns\nraise it"}, "max_iterations: stopped after 50 tool turns"},
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
