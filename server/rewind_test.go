package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// bufferEditor is an editor's side of the buffers it has open: it applies
// each workspace/applyEdit to its buffer (refusing one of a version it is
// past, as editors do), keeps the buffer's history as undo would, and
// tells the server with didChange before it answers.
type bufferEditor struct {
	c  *testClient
	mu sync.Mutex
	// text and version of each open buffer, by URI; undo is each buffer's
	// texts before every edit applied, oldest first.
	text    map[string]string
	version map[string]int32
	undo    map[string][]string
	labels  []string
}

func newBufferEditor(c *testClient) *bufferEditor {
	return &bufferEditor{c: c, text: map[string]string{}, version: map[string]int32{}, undo: map[string][]string{}}
}

func (b *bufferEditor) open(path, text string) {
	uri := pathToURI(path)
	b.mu.Lock()
	b.text[uri], b.version[uri] = text, 1
	b.mu.Unlock()
	b.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 1, "text": text}})
}

func (b *bufferEditor) buffer(path string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.text[pathToURI(path)]
}

func (b *bufferEditor) answer(method string, params json.RawMessage) (any, error) {
	switch method {
	case "agent/requestApproval":
		return map[string]any{"outcome": "selected", "optionId": "allow_once"}, nil
	case "workspace/applyEdit":
		var p applyEditParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		raw, _ := json.Marshal(p.Edit.DocumentChanges)
		var docs []textDocumentEdit
		if err := json.Unmarshal(raw, &docs); err != nil {
			return nil, err
		}
		b.mu.Lock()
		b.labels = append(b.labels, p.Label)
		var changed []textDocumentEdit
		for _, d := range docs {
			uri := d.TextDocument.URI
			if _, open := b.text[uri]; !open || d.TextDocument.Version == nil || *d.TextDocument.Version != b.version[uri] {
				b.mu.Unlock()
				return map[string]any{"applied": false, "failureReason": "not the buffer's version"}, nil
			}
			text := b.text[uri]
			for _, e := range slices.Backward(d.Edits) {
				text = text[:offsetOf(text, e.Range.Start)] + e.NewText + text[offsetOf(text, e.Range.End):]
			}
			b.undo[uri] = append(b.undo[uri], b.text[uri])
			b.text[uri] = text
			b.version[uri]++
			changed = append(changed, d)
		}
		notes := make([]map[string]any, 0, len(changed))
		for _, d := range changed {
			uri := d.TextDocument.URI
			notes = append(notes, map[string]any{"textDocument": map[string]any{"uri": uri, "version": b.version[uri]},
				"contentChanges": []map[string]any{{"text": b.text[uri]}}})
		}
		b.mu.Unlock()
		for _, n := range notes {
			if err := b.c.conn.Notify(context.Background(), "textDocument/didChange", n); err != nil {
				return nil, err
			}
		}
		return map[string]any{"applied": true}, nil
	}
	return defaultAnswer(method, params)
}

// startWithBuffers starts a server and an initialized client whose
// editor side is a bufferEditor.
func startWithBuffers(t *testing.T) (*env, *testClient, *bufferEditor) {
	e := newEnv(t, "")
	c := e.start(t)
	ed := newBufferEditor(c)
	c.setAnswer(ed.answer)
	c.initialize(e.root, caps(true, false, false))
	return e, c, ed
}

// offsetOf is the byte offset of an LSP position in ASCII text.
func offsetOf(text string, p position) int {
	off := 0
	for line := 0; line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return min(off+int(p.Character), len(text))
}

// TestRewindRestoresThroughTheEditorsBuffer is agent/rewind over LSP end
// to end: two turns change a file open in the editor (through its buffer)
// and files on disk; agent/turns lists them; a file changed outside
// agentls since is reported and nothing is touched; with force, the open
// file goes back through workspace/applyEdit (so the editor's undo has the
// agent's text one step back) while its disk copy is never written, the
// files on disk go back byte for byte, a file a turn created is removed,
// and the next prompt continues from before the turn.
func TestRewindRestoresThroughTheEditorsBuffer(t *testing.T) {
	e, c, ed := startWithBuffers(t)
	open := filepath.Join(e.root, "open.txt")
	disk := filepath.Join(e.root, "disk.txt")
	created := filepath.Join(e.root, "sub", "created.txt")
	writeFile(t, open, "open: as the user left it\n")
	writeFile(t, disk, "disk: before\n")
	ed.open(open, "open: as the user left it\n")

	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "w1", Name: "write_file", Input: `{"path":"open.txt","content":"open: turn 1\n"}`},
			{ID: "w2", Name: "write_file", Input: `{"path":"disk.txt","content":"disk: turn 1\n"}`},
		}},
		modeltest.Turn{Text: "one"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "e1", Name: "edit_file", Input: `{"path":"open.txt","old_text":"turn 1","new_text":"turn 2"}`},
			{ID: "w3", Name: "write_file", Input: `{"path":"sub/created.txt","content":"new in turn 2\n"}`},
		}},
		modeltest.Turn{Text: "two"},
		modeltest.Turn{Text: "three, after the rewind"},
	)
	r1 := c.await(c.runAsync(map[string]any{"prompt": "first turn\nwith a second line"}))
	if r1.StopReason != "end_turn" {
		t.Fatalf("turn 1: %+v", r1)
	}
	if r2 := c.await(c.runAsync(map[string]any{"prompt": "second turn", "sessionId": r1.SessionID})); r2.StopReason != "end_turn" {
		t.Fatalf("turn 2: %+v", r2)
	}
	if got := ed.buffer(open); got != "open: turn 2\n" {
		t.Fatalf("the buffer after two turns is %q", got)
	}

	var turns wire.TurnsResult
	c.mustCall("agent/turns", map[string]any{"sessionId": r1.SessionID}, &turns)
	if len(turns.Turns) != 2 || turns.Turns[0].Prompt != "first turn" || turns.Turns[1].Prompt != "second turn" ||
		!slices.Equal(turns.Turns[0].Files, []string{disk, open}) || !slices.Equal(turns.Turns[1].Files, []string{open, created}) {
		t.Fatalf("agent/turns = %+v, want both turns with their prompts' first lines and files", turns)
	}

	// The user changes disk.txt behind agentls: the rewind asks first.
	writeFile(t, disk, "disk: the user's own change\n")
	var res wire.RewindResult
	c.mustCall("agent/rewind", map[string]any{"sessionId": r1.SessionID, "turn": 1}, &res)
	if !slices.Equal(res.Changed, []string{disk}) || len(res.Restored) != 0 || !strings.Contains(res.Message, "nothing was restored") {
		t.Fatalf("agent/rewind without force = %+v, want disk.txt reported and nothing restored", res)
	}
	if b, _ := os.ReadFile(disk); string(b) != "disk: the user's own change\n" || ed.buffer(open) != "open: turn 2\n" {
		t.Fatalf("a rewind that was refused touched files: disk %q, buffer %q", b, ed.buffer(open))
	}
	if _, err := os.Stat(created); err != nil {
		t.Fatalf("a rewind that was refused removed %s: %v", created, err)
	}

	edits := len(ed.labels)
	c.mustCall("agent/rewind", map[string]any{"sessionId": r1.SessionID, "turn": 1, "force": true}, &res)
	t.Logf("agent/rewind force: %s", res.Message)
	if len(res.Restored) != 3 || len(res.NotRestored) != 0 || len(res.Changed) != 1 {
		t.Fatalf("agent/rewind force = %+v, want three files restored", res)
	}
	if got := ed.buffer(open); got != "open: as the user left it\n" {
		t.Errorf("the buffer after the rewind is %q, want the text before turn 1", got)
	}
	if ed.mu.Lock(); len(ed.labels) != edits+1 || ed.labels[edits] != "agentls: rewind "+open {
		t.Errorf("applyEdits %q, want one labelled as the rewind of %s", ed.labels[edits:], open)
	}
	undo := ed.undo[pathToURI(open)]
	ed.mu.Unlock()
	if len(undo) == 0 || undo[len(undo)-1] != "open: turn 2\n" {
		t.Errorf("the editor's undo after the rewind would give %q, want the agent's last text", undo)
	}
	if b, _ := os.ReadFile(open); string(b) != "open: as the user left it\n" {
		t.Errorf("open.txt on disk is %q: agentls wrote behind the editor's buffer", b)
	}
	if b, _ := os.ReadFile(disk); string(b) != "disk: before\n" {
		t.Errorf("disk.txt is %q after the forced rewind, want its bytes before turn 1", b)
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("the file turn 2 created is still there: %v", err)
	}

	c.mustCall("agent/turns", map[string]any{"sessionId": r1.SessionID}, &turns)
	if len(turns.Turns) != 0 {
		t.Errorf("agent/turns after rewinding to before turn 1 = %+v, want none", turns.Turns)
	}
	if r3 := c.await(c.runAsync(map[string]any{"prompt": "after the rewind", "sessionId": r1.SessionID})); r3.StopReason != "end_turn" {
		t.Fatalf("turn after the rewind: %+v", r3)
	}
	reqs := e.model.Requests()
	if last := reqs[len(reqs)-1]; strings.Contains(string(last.Body), "first turn") || !strings.Contains(string(last.Body), "after the rewind") {
		t.Errorf("the prompt after the rewind carried the forked-away turns:\n%s", last.Body)
	}
	if err := c.call("agent/rewind", map[string]any{"sessionId": r1.SessionID, "turn": 5}, &res); err == nil || !strings.Contains(err.Error(), "has turns 1 to 1") {
		t.Errorf("a rewind to a turn the session lacks: %v, want an error naming its turns", err)
	}
}

// TestRewindInPlanMode: a plan-mode turn changes nothing, so it keeps no
// checkpoint and a rewind before it restores nothing; the user's own
// rewind still runs in plan mode (it is not a call of the model's), puts
// back what an earlier ask-mode turn wrote, and leaves the mode as it was.
func TestRewindInPlanMode(t *testing.T) {
	e, c, _ := startWithBuffers(t)
	file := filepath.Join(e.root, "a.txt")
	writeFile(t, file, "before\n")
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"ask turn\n"}`}}},
		modeltest.Turn{Text: "written"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "w2", Name: "write_file", Input: `{"path":"a.txt","content":"plan turn\n"}`},
			{ID: "c1", Name: "run_command", Input: `{"command":"touch planned.txt"}`},
		}},
		modeltest.Turn{Text: "planned"},
	)
	r1 := c.await(c.runAsync(map[string]any{"prompt": "write it"}))
	var m wire.ModeResult
	c.mustCall("agent/setMode", map[string]any{"sessionId": r1.SessionID, "mode": "plan"}, &m)
	if r2 := c.await(c.runAsync(map[string]any{"prompt": "plan it", "sessionId": r1.SessionID})); r2.StopReason != "end_turn" {
		t.Fatalf("plan turn: %+v", r2)
	}
	if b, _ := os.ReadFile(file); string(b) != "ask turn\n" {
		t.Fatalf("a.txt after the plan turn is %q", b)
	}
	if _, err := os.Stat(filepath.Join(e.root, "planned.txt")); !os.IsNotExist(err) {
		t.Fatalf("the plan turn's command ran: %v", err)
	}
	var turns wire.TurnsResult
	c.mustCall("agent/turns", map[string]any{"sessionId": r1.SessionID}, &turns)
	if len(turns.Turns) != 2 || len(turns.Turns[0].Files) != 1 || len(turns.Turns[1].Files) != 0 {
		t.Fatalf("agent/turns = %+v, want the ask turn with a.txt and the plan turn with no file", turns)
	}
	var res wire.RewindResult
	c.mustCall("agent/rewind", map[string]any{"sessionId": r1.SessionID, "turn": 2}, &res)
	if len(res.Restored) != 0 || len(res.Changed) != 0 {
		t.Fatalf("rewind before the plan turn = %+v, want nothing to restore", res)
	}
	if b, _ := os.ReadFile(file); string(b) != "ask turn\n" {
		t.Fatalf("rewinding the plan turn changed a.txt to %q", b)
	}
	c.mustCall("agent/rewind", map[string]any{"sessionId": r1.SessionID, "turn": 1}, &res)
	if len(res.Restored) != 1 {
		t.Fatalf("rewind before the ask turn, in plan mode = %+v, want a.txt restored", res)
	}
	if b, _ := os.ReadFile(file); string(b) != "before\n" {
		t.Errorf("a.txt after the rewind in plan mode is %q, want %q", b, "before\n")
	}
	var st wire.StatusResult
	c.mustCall("agent/status", map[string]any{"sessionId": r1.SessionID}, &st)
	if st.Mode != wire.ModePlan {
		t.Errorf("the mode after the rewinds is %s, want plan still", st.Mode)
	}
}
