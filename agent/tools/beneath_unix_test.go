//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// search_text passes over a named pipe nobody writes (named, or walked)
// and a file bigger than it searches, and still finds the rest.
func TestSearchTextPassesOverPipesAndHugeFiles(t *testing.T) {
	tt := newToolTest(t)
	writeFileT(t, filepath.Join(tt.dir, "a.txt"), "needle\n")
	if err := syscall.Mkfifo(filepath.Join(tt.dir, "pipe.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(tt.dir, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("needle\n")
	if err := f.Truncate(maxSearchFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out, isErr, _ := tt.call("search_text", `{"pattern":"needle"}`); isErr || out != "a.txt:1: needle\n" {
		t.Errorf("search_text = %q (error %v), want only a.txt", out, isErr)
	}
	for _, p := range []string{"pipe.txt", "huge.txt"} {
		if out, isErr, _ := tt.call("search_text", `{"pattern":"needle","path":"`+p+`"}`); strings.Contains(out, ":1: needle") {
			t.Errorf("search_text in %s = %q (error %v), want no match", p, out, isErr)
		}
	}
}
