package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

func TestWriteAndEditAskAndFallBackToDisk(t *testing.T) {
	tt := newToolTest(t)
	out, isErr, status := tt.call("write_file", `{"path":"sub/new.txt","content":"hello\n"}`)
	if isErr || status != "completed" {
		t.Fatalf("write_file = %q %s", out, status)
	}
	if b, _ := os.ReadFile(filepath.Join(tt.dir, "sub", "new.txt")); string(b) != "hello\n" {
		t.Errorf("disk = %q", b)
	}
	if len(tt.asks) != 1 || tt.asks[0].Kind != "write" || !strings.Contains(tt.asks[0].Detail, "+hello") {
		t.Errorf("asks = %+v", tt.asks)
	}
	out, isErr, _ = tt.call("edit_file", `{"path":"sub/new.txt","old_text":"hello","new_text":"bye"}`)
	if isErr {
		t.Fatalf("edit_file = %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(tt.dir, "sub", "new.txt")); string(b) != "bye\n" {
		t.Errorf("disk after edit = %q", b)
	}
	writeFileT(t, filepath.Join(tt.dir, "dup.txt"), "x x\n")
	if out, isErr, _ := tt.call("edit_file", `{"path":"dup.txt","old_text":"x","new_text":"y"}`); !isErr || !strings.Contains(out, "occurs 2 times") {
		t.Errorf("ambiguous edit: %q", out)
	}
	if out, isErr, _ := tt.call("edit_file", `{"path":"dup.txt","old_text":"zzz","new_text":"y"}`); !isErr || !strings.Contains(out, "not found") {
		t.Errorf("missing old_text: %q", out)
	}
	tt.deny = true
	out, isErr, status = tt.call("write_file", `{"path":"denied.txt","content":"x"}`)
	if !isErr || status != "denied" || out != "ERROR: denied by the user" {
		t.Errorf("denied write = %q %s", out, status)
	}
	if _, err := os.Stat(filepath.Join(tt.dir, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a denied write reached the disk")
	}
	tt.deny = false
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	n := len(tt.asks)
	tt.call("write_file", `{"path":"auto.txt","content":"x"}`)
	if len(tt.asks) != n+1 {
		t.Errorf("a write under autopilot did not ask (G3: autopilot skips only commands the classifier calls safe)")
	}
}

func TestWriteOutsideTheWorkspaceIsRefusedBeforeAsking(t *testing.T) {
	tt := newToolTest(t)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(tt.dir, "out"))
	out, isErr, _ := tt.call("write_file", `{"path":"out/x.txt","content":"x"}`)
	if !isErr || !strings.Contains(out, "outside the workspace") || len(tt.asks) != 0 {
		t.Fatalf("write through a symlink out = %q, asks %d", out, len(tt.asks))
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file created outside the workspace")
	}
}

// TestTheEditCardIsAUnifiedDiffOfTheFile: the card of an edit_file shows
// where in the file the change lands (line numbers, the lines around it),
// not old_text and new_text alone: "return nil" replaced reads very
// differently in one function or another.
func TestTheEditCardIsAUnifiedDiffOfTheFile(t *testing.T) {
	tt := newToolTest(t)
	writeFileT(t, filepath.Join(tt.dir, "a.go"), "package a\n\nfunc A() error {\n\treturn nil\n}\n\nfunc B() error {\n\treturn errB\n}\n")
	if out, isErr, _ := tt.call("edit_file", `{"path":"a.go","old_text":"\treturn errB\n","new_text":"\treturn nil\n"}`); isErr {
		t.Fatalf("edit_file = %q", out)
	}
	want := "@@ -5,5 +5,5 @@\n" +
		"5 5  }\n" +
		"6 6  \n" +
		"7 7  func B() error {\n" +
		"8   -\treturn errB\n" +
		"  8 +\treturn nil\n" +
		"9 9  }\n"
	if len(tt.asks) != 1 || !strings.HasSuffix(tt.asks[0].Detail, "\n\n"+want) {
		t.Errorf("the edit card:\n%s\nwant it to end with the unified diff:\n%s", tt.asks[0].Detail, want)
	}
}
