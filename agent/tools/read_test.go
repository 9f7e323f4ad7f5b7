package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileNumbersLinesAndPrefersTheBuffer(t *testing.T) {
	tt := newToolTest(t)
	p := filepath.Join(tt.dir, "a.txt")
	writeFileT(t, p, "one\ntwo\nthree\n")
	out, isErr, _ := tt.call("read_file", `{"path":"a.txt","start_line":2,"end_line":3}`)
	if isErr || out != "     2\ttwo\n     3\tthree\n" {
		t.Fatalf("read_file = %q (error %v)", out, isErr)
	}
	tt.ws.buffers = map[string]string{p: "edited\n"}
	if out, _, _ := tt.call("read_file", `{"path":"a.txt"}`); !strings.Contains(out, "edited") {
		t.Errorf("read_file ignored the open buffer: %q", out)
	}
	writeFileT(t, filepath.Join(tt.dir, "bin"), "\x00\x01")
	if out, isErr, _ := tt.call("read_file", `{"path":"bin"}`); !isErr || !strings.Contains(out, "binary") {
		t.Errorf("binary file: %q", out)
	}
	if out, isErr, _ := tt.call("read_file", `{"path":"../../etc/passwd"}`); !isErr || !strings.Contains(out, "outside the workspace") {
		t.Errorf("read outside: %q", out)
	}
}

func TestListFindAndSearch(t *testing.T) {
	tt := newToolTest(t)
	writeFileT(t, filepath.Join(tt.dir, "cmd", "main.go"), "package main\n// TODO: fix\n")
	writeFileT(t, filepath.Join(tt.dir, "lib", "lib.go"), "package lib\n")
	writeFileT(t, filepath.Join(tt.dir, ".git", "config"), "TODO: inside git\n")
	writeFileT(t, filepath.Join(tt.dir, "README.md"), "TODO: docs\n")

	out, _, _ := tt.call("list_directory", `{}`)
	for _, want := range []string{"cmd/", "lib/", "README.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("list_directory = %q, lacks %q", out, want)
		}
	}
	out, _, _ = tt.call("find_files", `{"pattern":"*.go"}`)
	if out != "cmd/main.go\nlib/lib.go\n" {
		t.Errorf("find_files *.go = %q", out)
	}
	out, _, _ = tt.call("find_files", `{"pattern":"cmd/*.go"}`)
	if out != "cmd/main.go\n" {
		t.Errorf("find_files cmd/*.go = %q", out)
	}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO"}`)
	if !strings.Contains(out, "cmd/main.go:2: // TODO: fix") || !strings.Contains(out, "README.md:1:") || strings.Contains(out, "inside git") {
		t.Errorf("search_text = %q (want matches with path:line, .git skipped)", out)
	}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO","glob":"*.go"}`)
	if strings.Contains(out, "README") {
		t.Errorf("search_text glob *.go matched README: %q", out)
	}
	out, _, _ = tt.call("find_files", `{"pattern":"*.go","path":"cmd"}`)
	if out != "cmd/main.go\n" {
		t.Errorf("find_files under cmd = %q, want paths the model can pass back", out)
	}
	tt.ws.buffers = map[string]string{filepath.Join(tt.dir, "lib", "lib.go"): "package lib\n// TODO: unsaved\n"}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO","path":"lib"}`)
	if out != "lib/lib.go:2: // TODO: unsaved\n" {
		t.Errorf("search_text in a directory with an open buffer = %q", out)
	}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO","path":"lib/lib.go"}`)
	if out != "lib/lib.go:2: // TODO: unsaved\n" {
		t.Errorf("search_text of one open file = %q", out)
	}
	if out, isErr, _ := tt.call("search_text", `{"pattern":"("}`); !isErr || !strings.Contains(out, "not a valid regular expression") {
		t.Errorf("bad regexp: %q", out)
	}
	// An empty pattern says what is wanted, not "... regular expression: <nil>".
	if out, isErr, _ := tt.call("search_text", `{"pattern":""}`); !isErr || !strings.Contains(out, `search_text: pattern is required, e.g. "func main"`) || strings.Contains(out, "<nil>") {
		t.Errorf("empty pattern: %q", out)
	}
}
