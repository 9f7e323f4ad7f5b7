//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMCPServeReadsOnlyRegularFilesOfBoundedSize: an outside agent that
// may write the workspace puts a sparse file of 1 TiB there (no disk
// used) and a named pipe, and reads them with read_document (which, unlike
// read_file, checked the size only after reading the whole file) and as a
// resource would: agentls must answer an error for each, not allocate the
// whole file (the process dies) nor wait forever on a pipe nobody writes,
// and go on serving.
func TestMCPServeReadsOnlyRegularFilesOfBoundedSize(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	huge := filepath.Join(e.ws, "huge.txt")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skipf("this file system holds no sparse file of 1 TiB: %v", err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(e.ws, "pipe.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serveOnTerminal(t, e, "sandboxed-agent")
	for _, c := range []struct{ path, want string }{
		{"huge.txt", "more than read_document reads"},
		{"pipe.txt", "not a regular file"},
	} {
		r := <-s.callAsync("read_document", map[string]any{"path": c.path})
		if !r.isErr || !strings.Contains(r.text, c.want) {
			t.Errorf("read_document of %s = %+v, want an error saying %q", c.path, r, c.want)
		}
	}
	if r := <-s.callAsync("read_document", map[string]any{"path": "hello.txt"}); r.isErr || r.text != "hello\n" {
		t.Errorf("after them, read_document of hello.txt = %+v: the server no longer serves", r)
	}
}
