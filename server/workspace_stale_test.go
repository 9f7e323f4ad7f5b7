package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// staleEditor is an LSP client that plays the user: while an edit's card
// is open it changes the file (typing into its buffer with didChange, or
// on disk), then approves; it records every workspace/applyEdit and
// answers it applied.
type staleEditor struct {
	c      *testClient
	uri    string
	during func() // what the user does while the card is open
	mu     sync.Mutex
	edits  []applyEditParams
}

func (r *staleEditor) answer(method string, params json.RawMessage) (any, error) {
	switch method {
	case "agent/requestApproval":
		r.during()
		return map[string]any{"outcome": "selected", "optionId": "allow_once"}, nil
	case "workspace/applyEdit":
		var p applyEditParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.edits = append(r.edits, p)
		r.mu.Unlock()
		return map[string]any{"applied": true}, nil
	}
	return defaultAnswer(method, params)
}

// The user types into the open buffer while the edit's card is open. The
// edit that reaches the editor is computed from the buffer they left and
// names its version (so the editor refuses it should they type again), or,
// when the edit no longer applies, none is sent and the model is told to
// read the file again. Before, agentls sent the text it built before the
// card as a whole-buffer replacement with no version, deleting their line.
func TestTypingWhileTheCardIsOpenSurvivesTheEdit(t *testing.T) {
	tests := []struct {
		name, tool, args string
		typed            string // the buffer as the user leaves it (version 2)
		want             string // the edit's new text; "" when no edit may be sent
		result           string // in the tool result
	}{
		{"edit_file is made in the buffer the user left", "edit_file", `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`,
			"alpha\nbeta\ntyped while the card was open\n", "alpha\nBETA-BY-AGENT\ntyped while the card was open\n", "the other changes were kept"},
		{"edit_file whose old_text the user changed is refused", "edit_file", `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`,
			"alpha\nbeta, typed over\nbeta again\n", "", "old_text now occurs 2 time(s) in it, not 1"},
		{"write_file over a buffer the user changed is refused", "write_file", `{"path":"b.txt","content":"all new\n"}`,
			"alpha\nbeta\ntyped while the card was open\n", "", "its text changed in the editor or on disk"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			path := filepath.Join(e.root, "b.txt")
			writeFile(t, path, "alpha\nbeta\n")
			uri := pathToURI(path)
			r := &staleEditor{c: c, uri: uri, during: func() {
				c.notify("textDocument/didChange", map[string]any{
					"textDocument":   map[string]any{"uri": uri, "version": 2},
					"contentChanges": []map[string]any{{"text": tc.typed}},
				})
			}}
			c.setAnswer(r.answer)
			c.initialize(e.root, caps(true, false, false))
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": "plaintext", "version": 1, "text": "alpha\nbeta\n"}})
			e.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: tc.tool, Input: tc.args}}},
				modeltest.Turn{Text: "done"},
			)
			res, errc := c.runAsync(map[string]any{"prompt": "change b.txt"})
			if got := c.await(res, errc); got.StopReason != "end_turn" {
				t.Fatalf("result = %+v", got)
			}
			r.mu.Lock()
			edits := r.edits
			r.mu.Unlock()
			results := e.model.Requests()[1].ToolResults()
			if len(results) != 1 || !strings.Contains(results[0].Content, tc.result) {
				t.Errorf("tool result = %+v, want it to say %q", results, tc.result)
			}
			if tc.want == "" {
				if len(edits) != 0 {
					t.Errorf("applyEdit sent %+v, want none: the edit no longer applies to the user's buffer", edits)
				}
				if !results[0].IsError || !strings.Contains(results[0].Content, "read the file again") {
					t.Errorf("tool result = %+v, want an error telling the model to read the file again", results[0])
				}
				return
			}
			if len(edits) != 1 {
				t.Fatalf("applyEdit requests = %d, want 1", len(edits))
			}
			got := textDocumentEdits(t, edits[0])
			if len(got) != 1 || got[0].TextDocument.Version == nil || *got[0].TextDocument.Version != 2 ||
				len(got[0].Edits) != 1 || got[0].Edits[0].NewText != tc.want || got[0].Edits[0].Range.End != endPosition(tc.typed) {
				t.Errorf("edit = %+v, want one edit of version 2 replacing the buffer the user left with %q", got, tc.want)
			}
			if disk, _ := os.ReadFile(path); string(disk) != "alpha\nbeta\n" {
				t.Errorf("the disk changed to %q: the edit belongs to the editor", disk)
			}
		})
	}
}

// A client without workspace/applyEdit: agentls writes the disk, and a
// line the user added to the file while the card was open stays. Before,
// the result was "alpha\nBETA-BY-AGENT\n" and the tool said it replaced
// one occurrence.
func TestAChangeOnDiskWhileTheCardIsOpenSurvivesTheEdit(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	path := filepath.Join(e.root, "b.txt")
	writeFile(t, path, "alpha\nbeta\n")
	r := &staleEditor{c: c}
	c.setAnswer(r.answer)
	cp := caps(true, false, false)
	delete(cp, "workspace")
	c.initialize(e.root, cp)
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"b.txt","content":"replaced\n"}`}}},
		modeltest.Turn{Text: "done"},
	)
	// The write_file's card: the user changes the file again.
	first := true
	r.during = func() {
		if first {
			first = false
			writeFile(t, path, "alpha\nbeta\nappended by the user\n")
			return
		}
		writeFile(t, path, "alpha\nBETA-BY-AGENT\nappended by the user\nand more\n")
	}
	res, errc := c.runAsync(map[string]any{"prompt": "change b.txt"})
	if got := c.await(res, errc); got.StopReason != "end_turn" {
		t.Fatalf("result = %+v", got)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "alpha\nBETA-BY-AGENT\nappended by the user\nand more\n" {
		t.Errorf("b.txt = %q, want the edit made in the user's text and the write_file refused", disk)
	}
	reqs := e.model.Requests()
	if got := reqs[1].ToolResults(); len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Content, "the other changes were kept") {
		t.Errorf("edit_file's result = %+v, want it made in the current text, saying so", got)
	}
	if got := reqs[2].ToolResults(); len(got) != 2 || !got[1].IsError || !strings.Contains(got[1].Content, "nothing was written") {
		t.Errorf("write_file's result = %+v, want a refusal", got)
	}
}

// The same with the real binary and Microsoft's LSP client library playing
// an editor that honours TextDocumentEdit versions (testdata/
// stale_edit_client.js): a line typed while the card is open, a line
// typed as the edit arrives (the editor refuses the stale version, agentls
// compares again and re-applies), and a write_file over a changed buffer.
func TestNodeEditorKeepsWhatTheUserTyped(t *testing.T) {
	e := newEnv(t, "")
	for _, name := range []string{"b.txt", "c.txt", "d.txt"} {
		writeFile(t, filepath.Join(e.root, name), "alpha\nbeta\n")
	}
	edit := func(name string) string {
		return `{"path":"` + name + `","old_text":"beta","new_text":"BETA-BY-AGENT"}`
	}
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "b1", Name: "edit_file", Input: edit("b.txt")}}},
		modeltest.Turn{Text: "edited b"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "edit_file", Input: edit("c.txt")}}},
		modeltest.Turn{Text: "edited c"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "d1", Name: "write_file", Input: `{"path":"d.txt","content":"all new\n"}`}}},
		modeltest.Turn{Text: "wrote d"},
	)
	runNodeLSP(t, e, "stale_edit_client.js")
	reqs := e.model.Requests()
	if len(reqs) != 6 {
		t.Fatalf("the model got %d requests, want 6", len(reqs))
	}
	for i, want := range map[int]string{1: "the other changes were kept", 3: "the other changes were kept", 5: "read the file again"} {
		got := reqs[i].ToolResults()
		if len(got) != 1 || !strings.Contains(got[0].Content, want) || got[0].IsError != (i == 5) {
			t.Errorf("request %d carries tool results %+v, want one saying %q", i, got, want)
		}
	}
}

// An editor that refuses an edit for its own reasons (no didChange came):
// the tool fails saying so, and agentls never writes the disk behind it.
func TestAnEditTheEditorRefusesIsNotWrittenToDisk(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	path := filepath.Join(e.root, "b.txt")
	writeFile(t, path, "alpha\nbeta\n")
	uri := pathToURI(path)
	c.setAnswer(func(method string, params json.RawMessage) (any, error) {
		switch method {
		case "agent/requestApproval":
			return map[string]any{"outcome": "selected", "optionId": "allow_once"}, nil
		case "workspace/applyEdit":
			return map[string]any{"applied": false, "failureReason": "the buffer is read-only"}, nil
		}
		return defaultAnswer(method, params)
	})
	c.initialize(e.root, caps(true, false, false))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 1, "text": "alpha\nbeta\n"}})
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"b.txt","old_text":"beta","new_text":"BETA"}`}}},
		modeltest.Turn{Text: "done"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "edit b.txt"})
	if got := c.await(res, errc); got.StopReason != "end_turn" {
		t.Fatalf("result = %+v", got)
	}
	got := e.model.Requests()[1].ToolResults()
	if len(got) != 1 || !got[0].IsError || !strings.Contains(got[0].Content, "the buffer is read-only") || !strings.Contains(got[0].Content, "nothing was written") {
		t.Errorf("tool result = %+v, want the editor's refusal, saying nothing was written", got)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "alpha\nbeta\n" {
		t.Errorf("b.txt on disk = %q: a refused edit must not reach the disk", disk)
	}
}

// The model edits a file through a link (link.txt -> real.txt) while the
// editor has the real file open with unsaved text. The edit is made in
// that buffer, naming its version. Before, agentls read the buffer of
// real.txt but sent the edit for link.txt, compared it with the disk,
// and refused every time: "it kept changing in the editor".
func TestAnEditThroughALinkGoesToTheOpenBufferOfItsFile(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	real := filepath.Join(e.root, "real.txt")
	writeFile(t, real, "alpha\nbeta\n")
	if err := os.Symlink("real.txt", filepath.Join(e.root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(real)
	r := &staleEditor{c: c, during: func() {}}
	c.setAnswer(r.answer)
	c.initialize(e.root, caps(true, false, false))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 4, "text": "alpha\nbeta\nunsaved\n"}})
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"link.txt","old_text":"beta","new_text":"BETA"}`}}},
		modeltest.Turn{Text: "done"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "edit link.txt"})
	if got := c.await(res, errc); got.StopReason != "end_turn" {
		t.Fatalf("result = %+v", got)
	}
	if got := e.model.Requests()[1].ToolResults(); len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Content, "(editor)") {
		t.Fatalf("tool result = %+v, want the edit made through the editor", got)
	}
	r.mu.Lock()
	edits := r.edits
	r.mu.Unlock()
	if len(edits) != 1 {
		t.Fatalf("applyEdit requests = %d, want 1", len(edits))
	}
	got := textDocumentEdits(t, edits[0])
	if len(got) != 1 || got[0].TextDocument.URI != uri || got[0].TextDocument.Version == nil || *got[0].TextDocument.Version != 4 ||
		len(got[0].Edits) != 1 || got[0].Edits[0].NewText != "alpha\nBETA\nunsaved\n" {
		t.Errorf("edit = %+v, want one edit of real.txt's buffer at version 4 keeping its unsaved line", got)
	}
}
