package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// The user types into the editor's buffer while the permission is open (the
// official SDK client playing Zed: fs/read_text_file answers its buffer).
// agentls reads the buffer again before fs/write_text_file: edit_file's
// replacement is made in the text the user left, and write_file over the
// changed buffer writes nothing and tells the model to read it again.
// Before, fs/write_text_file carried the text built before the permission,
// deleting the typed line.
func TestTypingWhileThePermissionIsOpenIsKept(t *testing.T) {
	w := newWorld(t, "")
	b, d := filepath.Join(w.root, "b.txt"), filepath.Join(w.root, "d.txt")
	for _, p := range []string{b, d} {
		if err := os.WriteFile(p, []byte("alpha\nbeta\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{Text: "edited"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"d.txt","content":"all new\n"}`}}},
		modeltest.Turn{Text: "wrote"},
	)
	typed := "alpha\nbeta\ntyped while the card was open\n"
	p := plan{Buffers: map[string]string{b: "alpha\nbeta\n", d: "alpha\nbeta\n"}, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "edit b.txt", AnswersWithChanges: []answerWithChanges{{Option: "allow_once", Buffers: map[string]string{b: typed}}}},
		{Op: "prompt", Text: "write d.txt", AnswersWithChanges: []answerWithChanges{{Option: "allow_once", Buffers: map[string]string{d: typed}}}},
	}}
	p.FS.Read, p.FS.Write = true, true
	out := w.run(p)
	if len(out.Permissions) != 2 {
		t.Fatalf("want two permissions, got %d", len(out.Permissions))
	}
	if len(out.Writes) != 1 || out.Writes[0].Path != b || out.Writes[0].Content != "alpha\nBETA-BY-AGENT\ntyped while the card was open\n" {
		t.Errorf("fs/write_text_file calls %+v, want one, of b.txt, keeping the typed line", out.Writes)
	}
	reqs := w.model.ModelRequests("openai")
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4", len(reqs))
	}
	if got := reqs[1].ToolResults(); len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Content, "the other changes were kept") {
		t.Errorf("edit_file's result = %+v, want it made in the user's text, saying so", got)
	}
	if got := reqs[3].ToolResults(); len(got) != 2 || !got[1].IsError || !strings.Contains(got[1].Content, "read the file again") {
		t.Errorf("write_file's result = %+v, want a refusal telling the model to read the file again", got)
	}
	if ups := out.toolUpdates("w1"); len(ups) == 0 || ups[len(ups)-1].Status != "failed" {
		t.Errorf("the refused write_file's tool call ends %+v, want failed (the user sees it)", ups)
	}
	for _, p := range []string{b, d} {
		if disk, _ := os.ReadFile(p); string(disk) != "alpha\nbeta\n" {
			t.Errorf("%s on disk = %q: the writes belong to the editor", p, disk)
		}
	}
}

// An editor without fs capabilities: agentls writes the disk, and a line
// the user added to the file while the permission was open stays.
func TestAChangeOnDiskWhileThePermissionIsOpenIsKept(t *testing.T) {
	w := newWorld(t, "")
	b := filepath.Join(w.root, "b.txt")
	if err := os.WriteFile(b, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{Text: "edited"},
	)
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "edit b.txt", AnswersWithChanges: []answerWithChanges{{Option: "allow_once", Disk: map[string]string{b: "alpha\nbeta\nappended by the user\n"}}}}}})
	if len(out.Permissions) != 1 || len(out.Writes) != 0 {
		t.Fatalf("permissions %d, fs writes %+v; want one permission and the write on disk", len(out.Permissions), out.Writes)
	}
	if disk, _ := os.ReadFile(b); string(disk) != "alpha\nBETA-BY-AGENT\nappended by the user\n" {
		t.Errorf("b.txt = %q, want the edit made in the user's text", disk)
	}
}
