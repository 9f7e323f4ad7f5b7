package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The os.Root path (macOS, Windows, a Linux without openat2) tells a
// link out of the folder (EXDEV, "changed into a link") from a file that
// is not there, whatever the file is called: a missing escapes_test.go is
// a new file for write_file to create, not a swapped link.
func TestOpenInRootTellsAMissingFileFromAnEscape(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	writeFileT(t, filepath.Join(outside, "secret"), "s\n")
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"escapes_test.go", "path escapes from parent", "missing"} {
		f, err := openInRoot(dir, name)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EXDEV) {
			t.Errorf("openInRoot of a missing %q = %v, want not-exist (and not EXDEV)", name, err)
		}
	}
	f, err := openInRoot(dir, "out/secret")
	if err == nil {
		f.Close()
	}
	if !errors.Is(err, syscall.EXDEV) {
		t.Errorf("openInRoot through a link out of the folder = %v, want EXDEV", err)
	}
}

// write_file creates a new file whose name holds "escapes" (through
// whichever open this system has).
func TestWriteFileCreatesAFileNamedEscapes(t *testing.T) {
	tt := newToolTest(t)
	out, isErr, _ := tt.call("write_file", `{"path":"html_escapes.go","content":"package html\n"}`)
	if isErr {
		t.Fatalf("write_file html_escapes.go: %s", out)
	}
	if b, err := os.ReadFile(filepath.Join(tt.dir, "html_escapes.go")); err != nil || string(b) != "package html\n" {
		t.Errorf("html_escapes.go = %q, %v", b, err)
	}
}
