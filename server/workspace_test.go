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

// editRecorder approves every card through the request card and records applyEdit
// requests, answering them with applied.
type editRecorder struct {
	mu    sync.Mutex
	edits []applyEditParams
}

func (r *editRecorder) answer(method string, params json.RawMessage) (any, error) {
	switch method {
	case "agent/requestApproval":
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

func TestReadsSeeTheBufferAndWritesGoThroughTheEditor(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	rec := &editRecorder{}
	c.setAnswer(rec.answer)
	c.initialize(e.root, caps(true, false, false))
	path := filepath.Join(e.root, "a.txt")
	writeFile(t, path, "on disk\n")
	uri := pathToURI(path)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 1, "text": "unsaved €\n"}})

	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "r1", Name: "read_file", Input: `{"path":"a.txt"}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"new text\n"}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"a.txt","old_text":"unsaved","new_text":"edited"}`}}},
		modeltest.Turn{Text: "written"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "rewrite a.txt"})
	if r := c.await(res, errc); r.StopReason != "end_turn" {
		t.Fatalf("result = %+v", r)
	}
	reqs := e.model.Requests()
	if got := reqs[1].ToolResults(); len(got) != 1 || !strings.Contains(got[0].Content, "unsaved €") {
		t.Errorf("read_file result = %+v, want the buffer's unsaved text", got)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 2 {
		t.Fatalf("applyEdit requests = %d, want 2 (write_file, then edit_file)", len(rec.edits))
	}
	ed := rec.edits[0]
	if ed.Label != "agentls: write_file "+path {
		t.Errorf("label = %q", ed.Label)
	}
	if got := rec.edits[1].Label; got != "agentls: edit_file "+path {
		t.Errorf("edit_file's label = %q, want the tool that wrote", got)
	}
	want := []textEdit{{Range: lspRange{End: position{Line: 1}}, NewText: "new text\n"}}
	if got := textDocumentEdits(t, ed); len(got) != 1 || got[0].TextDocument.URI != uri || got[0].TextDocument.Version == nil ||
		*got[0].TextDocument.Version != 1 || len(got[0].Edits) != 1 || got[0].Edits[0] != want[0] {
		t.Errorf("edit = %+v, want one TextDocumentEdit of version 1 (the buffer's) replacing the whole buffer: %+v", got, want)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "on disk\n" {
		t.Errorf("the disk changed to %q: the write must land in the editor's buffer", disk)
	}
}

// textDocumentEdits are the TextDocumentEdits of an applyEdit's
// documentChanges (a CreateFile among them has no edits).
func textDocumentEdits(t *testing.T, p applyEditParams) []textDocumentEdit {
	t.Helper()
	raw, _ := json.Marshal(p.Edit.DocumentChanges)
	var all []textDocumentEdit
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	var out []textDocumentEdit
	for _, e := range all {
		if e.TextDocument.URI != "" {
			out = append(out, e)
		}
	}
	return out
}

// A file the editor has not announced (no didOpen) may still be in one of
// its buffers, with unsaved text agentls never saw (Helix attaches agentls
// only to some languages): an edit sent to the editor would replace that
// text, so agentls writes the disk and says so, for a file that exists and
// for a new one alike.
func TestAFileTheEditorHasNotOpenedIsWrittenOnDisk(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	rec := &editRecorder{}
	c.setAnswer(rec.answer)
	c.initialize(e.root, caps(true, false, false))
	notes := filepath.Join(e.root, "notes.txt")
	writeFile(t, notes, "alpha\nbeta\n")
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"notes.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"new.txt","content":"hello"}`}}},
		modeltest.Turn{Text: "done"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "edit notes.txt, create new.txt"})
	if r := c.await(res, errc); r.StopReason != "end_turn" {
		t.Fatalf("result = %+v", r)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 0 {
		t.Errorf("applyEdit requests = %+v, want none: the editor never opened these files with agentls", rec.edits)
	}
	if disk, err := os.ReadFile(notes); err != nil || string(disk) != "alpha\nBETA-BY-AGENT\n" {
		t.Errorf("notes.txt = %q, %v; want the edit on disk", disk, err)
	}
	if disk, err := os.ReadFile(filepath.Join(e.root, "new.txt")); err != nil || string(disk) != "hello" {
		t.Errorf("new.txt = %q, %v; want it created on disk", disk, err)
	}
	reqs := e.model.Requests()
	for i, id := range []string{"e1", "w1"} {
		got := reqs[i+1].ToolResults()
		if len(got) != i+1 || got[i].ToolUseID != id || got[i].IsError || !strings.Contains(got[i].Content, "(written on disk: the editor had not opened it with agentls)") {
			t.Errorf("%s result = %+v, want it to say it was written on disk because the editor had not opened the file", id, got)
		}
	}
}

func TestClientWithoutApplyEditGetsTheWriteOnDisk(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	rec := &editRecorder{}
	c.setAnswer(rec.answer)
	cp := caps(true, false, false)
	delete(cp, "workspace")
	c.initialize(e.root, cp)
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"b.txt","content":"on disk now"}`}}},
		modeltest.Turn{Text: "written"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "write b.txt"})
	if r := c.await(res, errc); r.StopReason != "end_turn" {
		t.Fatalf("result = %+v", r)
	}
	if disk, err := os.ReadFile(filepath.Join(e.root, "b.txt")); err != nil || string(disk) != "on disk now" {
		t.Errorf("b.txt = %q, %v; want the text on disk", disk, err)
	}
	if len(rec.edits) != 0 {
		t.Errorf("a client without workspace.applyEdit got %d applyEdit requests", len(rec.edits))
	}
}
