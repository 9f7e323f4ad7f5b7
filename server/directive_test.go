package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestTheDirectiveIsRemovedOnceItsEditLanded: a task started from a
// line's `agent:` comment that ends its turn with a write the user
// approved removes that line through the editor (one versioned edit
// deleting it). A write the user rejected, a task that only answered,
// [agent] keep_directive and a failed turn keep it (before, the first
// version of this removed it after a rejected write too, which VS Code's
// reject tests caught).
func TestTheDirectiveIsRemovedOnceItsEditLanded(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": "hi\n"})
	write := modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: string(in)}}}
	done := modeltest.Turn{Text: "done"}
	for _, tc := range []struct {
		name, config, option string
		turns                []modeltest.Turn
		removed, written     bool
	}{
		{"an approved write: removed", "", "allow_once", []modeltest.Turn{write, done}, true, true},
		{"a rejected write keeps it", "", "reject_once", []modeltest.Turn{write, done}, false, false},
		{"an answer only keeps it", "", "allow_once", []modeltest.Turn{done}, false, false},
		{"kept with keep_directive", "[agent]\nkeep_directive = true\n", "allow_once", []modeltest.Turn{write, done}, false, true},
		{"an error keeps it", "", "allow_once", []modeltest.Turn{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.config)
			c := e.start(t)
			rec := &editRecorder{}
			c.setAnswer(func(method string, params json.RawMessage) (any, error) {
				if method == "agent/requestApproval" {
					return map[string]any{"outcome": "selected", "optionId": tc.option}, nil
				}
				return rec.answer(method, params)
			})
			c.initialize(e.root, caps(true, false, false))
			path := filepath.Join(e.root, "main.go")
			writeFile(t, path, "")
			uri := pathToURI(path)
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": "go", "version": 3, "text": "package main\n\n// agent: say hi\nfunc main() {}\n"}})
			e.model.Script(tc.turns...)
			at := map[string]int{"line": 2, "character": 0}
			res, errc := c.runAsync(map[string]any{"prompt": "say hi", "textDocument": map[string]any{"uri": uri},
				"range": map[string]any{"start": at, "end": at}})
			r := c.await(res, errc)
			if _, err := os.Stat(filepath.Join(e.root, "notes.txt")); (err == nil) != tc.written {
				t.Fatalf("result %+v: notes.txt written %v, want %v", r, err == nil, tc.written)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if !tc.removed {
				if len(rec.edits) != 0 {
					t.Errorf("result %+v; edits %+v, want none", r, rec.edits)
				}
				return
			}
			if r.StopReason != "end_turn" || len(rec.edits) != 1 {
				t.Fatalf("result %+v, %d edits; want end_turn and one edit", r, len(rec.edits))
			}
			got := textDocumentEdits(t, rec.edits[0])
			want := textEdit{Range: lspRange{Start: position{Line: 2}, End: position{Line: 3}}}
			if len(got) != 1 || got[0].TextDocument.URI != uri || got[0].TextDocument.Version == nil || *got[0].TextDocument.Version != 3 ||
				len(got[0].Edits) != 1 || got[0].Edits[0] != want {
				t.Errorf("edit %+v, want one TextDocumentEdit of version 3 deleting line 2: %+v", got, want)
			}
		})
	}
}
