package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command string
		path    string
		want    string // "" means an error containing wantErr
		wantErr string
	}{
		{"found on the server's PATH", "tool", "/nonexistent:" + dir, exe, ""},
		{"a relative PATH entry is never searched (no planted ./tool)", "tool", ".", "", "not found in $PATH"},
		{"an absolute path is used as given", exe, "", exe, ""},
		{"a relative path is resolved against cwd", "./tool", "", exe, ""},
		{"a file without the executable bit is refused", "./plain", "", "", "not an executable file"},
		{"an empty command says what to set", "", "", "", "command is empty"},
		{"a missing command names itself", "nope", dir, "", `command "nope" not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(dir)
			got, err := lookPath(tc.command, []string{"PATH=" + tc.path}, dir)
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Fatalf("lookPath(%q) = %q, %v; want %q", tc.command, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("lookPath(%q) = %q, %v; want an error saying %q", tc.command, got, err, tc.wantErr)
			}
		})
	}
}

func TestRingTail(t *testing.T) {
	r := newRing(16)
	r.Write([]byte("line one\nline two\nline three\n"))
	if got := r.Tail(10, 100); got != "line three" {
		t.Errorf("ring keeps the last 16 bytes: tail %q", got)
	}
	r = newRing(1000)
	r.Write([]byte("a\nb\nc\nd\n"))
	if got := r.Tail(2, 100); got != "c\nd" {
		t.Errorf("tail of 2 lines = %q", got)
	}
	if got := r.Tail(10, 3); got != "c\nd" {
		t.Errorf("a tail cut at a line boundary keeps that line: %q", got)
	}
	if got := r.Tail(10, 2); got != "d" {
		t.Errorf("a tail cut mid-line drops the partial line: %q", got)
	}
}
