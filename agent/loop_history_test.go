package agent

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
)

func user(text string) model.Message {
	return model.Message{Role: "user", Content: []model.Block{{Type: "text", Text: text}}}
}
func assistant(blocks ...model.Block) model.Message {
	return model.Message{Role: "assistant", Content: blocks}
}
func text(s string) model.Block { return model.Block{Type: "text", Text: s} }
func use(id string) model.Block {
	return model.Block{Type: "tool_use", ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}
}
func result(id string) model.Block {
	return model.Block{Type: "tool_result", ToolUseID: id, Content: "ok"}
}
func results(ids ...string) model.Message {
	m := model.Message{Role: "user"}
	for _, id := range ids {
		m.Content = append(m.Content, result(id))
	}
	return m
}

func TestValidHistoryRules(t *testing.T) {
	tests := []struct {
		name string
		msgs []model.Message
		ok   bool
	}{
		{"a single prompt is sendable", []model.Message{user("hi")}, true},
		{"tool uses answered in order are sendable", []model.Message{user("hi"), assistant(text("x"), use("a"), use("b")), results("a", "b")}, true},
		{"a prompt may follow the tool results in the same message", []model.Message{user("hi"), assistant(use("a")), {Role: "user", Content: []model.Block{result("a"), text("more")}}}, true},
		{"empty history is not sendable", nil, false},
		{"history must start with the user", []model.Message{assistant(text("x")), user("hi")}, false},
		{"history must end with the user", []model.Message{user("hi"), assistant(text("x"))}, false},
		{"roles must alternate", []model.Message{user("a"), user("b")}, false},
		{"a tool use without a result is refused", []model.Message{user("hi"), assistant(use("a"), use("b")), results("a")}, false},
		{"results out of order are refused", []model.Message{user("hi"), assistant(use("a"), use("b")), results("b", "a")}, false},
		{"a result for no tool use is refused", []model.Message{user("hi"), assistant(use("a")), results("a", "z")}, false},
		{"a duplicate result is refused", []model.Message{user("hi"), assistant(use("a")), results("a", "a")}, false},
		{"text before the results is refused", []model.Message{user("hi"), assistant(use("a")), {Role: "user", Content: []model.Block{text("x"), result("a")}}}, false},
		{"duplicate tool use ids are refused", []model.Message{user("hi"), assistant(use("a"), use("a")), results("a", "a")}, false},
		{"tool input must be a JSON object", []model.Message{user("hi"), assistant(model.Block{Type: "tool_use", ID: "a", Name: "x", Input: json.RawMessage(`[1]`)}), results("a")}, false},
		{"an empty message is refused", []model.Message{user("hi"), {Role: "assistant"}, user("x")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := session.ValidHistory(tc.msgs)
			if tc.ok != (err == nil) {
				t.Fatalf("ValidHistory = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestSessionLoadRepairsABrokenTail(t *testing.T) {
	s := session.NewStore(t.TempDir(), "/some/root")
	good := []model.Message{user("first"), assistant(text("answer")), user("second"), assistant(use("a"))}
	if err := s.Append("s1", good...); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(s.Path("s1"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"role":"user","content":[{"type":"tool_res`) // torn by a crash
	f.Close()
	got, note, err := s.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || session.ValidStored(got) != nil {
		t.Fatalf("loaded %d messages (%v), want the 3 before the unanswered tool use", len(got), session.ValidStored(got))
	}
	if !strings.Contains(note, "set aside 2 line(s)") {
		t.Errorf("note = %q", note)
	}
	again, _, _ := s.Load("s1")
	if len(again) != 3 {
		t.Errorf("the repaired file was not rewritten: %d messages", len(again))
	}
	raw, _ := os.ReadFile(s.Path("s1"))
	if strings.Contains(string(raw), "tool_res\n") || strings.Count(string(raw), "\n") != 3 {
		t.Errorf("file after repair:\n%s", raw)
	}
}

func TestSessionIDsCannotNamePaths(t *testing.T) {
	for _, id := range []string{"../x", "a/b", "", ".", strings.Repeat("a", 65)} {
		if session.CheckID(id) == nil {
			t.Errorf("session id %q accepted", id)
		}
	}
	if session.CheckID(session.NewID()) != nil {
		t.Error("a generated session id is refused")
	}
}
