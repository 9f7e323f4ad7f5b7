package neovim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRewind, in real Neovim 0.7.2, 0.10 and 0.12: two tasks change
// greeting.txt (open: through its buffer) and notes.txt (on disk); the user
// changes notes.txt; :AgentRewind's picker lists both turns with their
// prompts and files; going back to before turn 1 names notes.txt as
// changed outside agentls, keeps everything when told to, and on
// "Overwrite them" puts the buffer back as before turn 1 (through
// workspace/applyEdit, so `u` brings the agent's text back) and notes.txt
// on disk byte for byte.
func TestRewind(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			first, _ := json.Marshal(map[string]string{"path": "greeting.txt", "content": newContent})
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{
					{ID: "w1", Name: "write_file", Input: string(first)},
					{ID: "w2", Name: "write_file", Input: `{"path":"notes.txt","content":"notes: turn 1\n"}`},
				}},
				modeltest.Turn{Text: "one"},
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"greeting.txt","old_text":"from the agent","new_text":"from the agent, twice"}`}}},
				modeltest.Turn{Text: "two"},
			)
			notes := filepath.Join(w.ws, "notes.txt")
			if err := os.WriteFile(notes, []byte("notes: before\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "rewind.lua"))
			if res["cards"] != 3.0 {
				t.Errorf("%v cards, want the three writes'", res["cards"])
			}
			twice := []string{"Hello, world!", "from the agent, twice"}
			if got := strs(res["lines_after_turns"]); strings.Join(got, "\n") != strings.Join(twice, "\n") {
				t.Fatalf("the buffer after two turns: %q", got)
			}
			labels := strs(res["turn_labels"])
			if len(labels) < 2 || labels[0] != "1. first turn (2 file(s))" || labels[1] != "2. second turn (1 file(s))" {
				t.Errorf("the turn picker showed %q", labels)
			}
			prompts := strs(res["changed_prompts"])
			if len(prompts) != 2 || !strings.Contains(prompts[0], notes) || strings.Contains(prompts[0], w.file) {
				t.Errorf("the changed-files prompts %q, want each naming notes.txt only", prompts)
			}
			if kept, _ := res["kept"].(map[string]any); kept == nil || kept["restored"] != nil || len(kept["changed"].([]any)) != 1 {
				t.Errorf("the rewind told to keep the files answered %v", res["kept"])
			}
			if got := strs(res["lines_kept"]); strings.Join(got, "\n") != strings.Join(twice, "\n") {
				t.Errorf("keeping the changed files still changed the buffer: %q", got)
			}
			rewound, _ := res["rewound"].(map[string]any)
			if rewound == nil || len(rewound["restored"].([]any)) != 2 || !strings.Contains(rewound["message"].(string), "rewound to before turn 1: 2 file(s) restored") {
				t.Fatalf("the overwriting rewind answered %v", res["rewound"])
			}
			if got := strings.Join(strs(res["lines_rewound"]), "\n") + "\n"; got != original {
				t.Errorf("the buffer after the rewind is %q, want %q", got, original)
			}
			if got := strs(res["lines_undone"]); strings.Join(got, "\n") != strings.Join(twice, "\n") {
				t.Errorf("u after the rewind gives %q, want the agent's text back", got)
			}
			if b, _ := os.ReadFile(notes); string(b) != "notes: before\n" {
				t.Errorf("notes.txt after the rewind is %q", b)
			}
			if b, _ := os.ReadFile(w.file); string(b) != original {
				t.Errorf("greeting.txt on disk is %q: the agent's edits and the rewind were to go through the buffer", b)
			}
			found := false
			for _, m := range strs(res["notify"]) {
				found = found || strings.Contains(m, "bad turn 5")
			}
			if !found {
				t.Errorf(":AgentRewind 5 said %q, want the error naming the turns", strs(res["notify"]))
			}
		})
	}
}
