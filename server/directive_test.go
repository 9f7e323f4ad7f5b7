package server

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestTheDirectiveIsRemovedOnceItsTaskIsDone: a task started from a
// line's `agent:` comment that ends its turn removes that line through the
// editor (one versioned edit deleting it); [agent] keep_directive keeps
// it; a task that did not end its turn keeps it too. Before, the comment
// stayed and was offered again.
func TestTheDirectiveIsRemovedOnceItsTaskIsDone(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		turn         modeltest.Turn
		removed      bool
	}{
		{"done: removed", "", modeltest.Turn{Text: "hi"}, true},
		{"kept with keep_directive", "[agent]\nkeep_directive = true\n", modeltest.Turn{Text: "hi"}, false},
		{"an error keeps it", "", modeltest.Turn{Status: 500}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.config)
			c := e.start(t)
			rec := &editRecorder{}
			c.setAnswer(rec.answer)
			c.initialize(e.root, caps(true, false, false))
			path := filepath.Join(e.root, "main.go")
			writeFile(t, path, "")
			uri := pathToURI(path)
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": "go", "version": 3, "text": "package main\n\n// agent: say hi\nfunc main() {}\n"}})
			e.model.Script(tc.turn, tc.turn, tc.turn, tc.turn)
			at := map[string]int{"line": 2, "character": 0}
			res, errc := c.runAsync(map[string]any{"prompt": "say hi", "textDocument": map[string]any{"uri": uri},
				"range": map[string]any{"start": at, "end": at}})
			r := c.await(res, errc)
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
