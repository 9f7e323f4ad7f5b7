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

func TestNewFileIsCreatedThroughTheEditorWhenItCan(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	rec := &editRecorder{}
	c.setAnswer(rec.answer)
	c.initialize(e.root, caps(true, false, false))
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"new.txt","content":"hello"}`}}},
		modeltest.Turn{Text: "created"},
	)
	res, errc := c.runAsync(map[string]any{"prompt": "create new.txt"})
	if r := c.await(res, errc); r.StopReason != "end_turn" {
		t.Fatalf("result = %+v", r)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.edits) != 1 {
		t.Fatalf("applyEdit requests = %d, want 1", len(rec.edits))
	}
	raw, _ := json.Marshal(rec.edits[0].Edit.DocumentChanges)
	var changes []struct {
		Kind         string `json:"kind"`
		URI          string `json:"uri"`
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Edits []textEdit `json:"edits"`
	}
	if err := json.Unmarshal(raw, &changes); err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(filepath.Join(e.root, "new.txt"))
	if len(changes) != 2 || changes[0].Kind != "create" || changes[0].URI != uri ||
		changes[1].TextDocument.URI != uri || len(changes[1].Edits) != 1 || changes[1].Edits[0].NewText != "hello" {
		t.Errorf("documentChanges = %s, want a CreateFile of %s then its text", raw, uri)
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
