package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMemoryKeepsWhatEachEndpointSaid(t *testing.T) {
	dir := t.TempDir()
	m := OpenMemory(dir)
	if err := m.Update("http://a/v1/chat/completions", "m1", func(r *Remembered) { r.Window, r.WindowFrom = 4096, "llama.cpp /props n_ctx" }); err != nil {
		t.Fatal(err)
	}
	if err := m.Update("http://a/v1/chat/completions", "m1", func(r *Remembered) { r.TokenField = "max_completion_tokens" }); err != nil {
		t.Fatal(err)
	}
	// Another process reads the file.
	got := OpenMemory(dir).Get("http://a/v1/chat/completions", "m1")
	if got != (Remembered{Window: 4096, WindowFrom: "llama.cpp /props n_ctx", TokenField: "max_completion_tokens"}) {
		t.Errorf("got %+v", got)
	}
	if got := m.Get("http://a/v1/chat/completions", "m2"); got != (Remembered{}) {
		t.Errorf("another model: %+v; want nothing", got)
	}
	fi, err := os.Stat(filepath.Join(dir, "endpoints.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("endpoints.json: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	// A credential in the base URL is never written to the file.
	if err := m.Update("http://user:s3cret@b/v1/chat/completions?key=s3cret", "m1", func(r *Remembered) { r.Window = 8192 }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "endpoints.json")); strings.Contains(string(b), "s3cret") {
		t.Errorf("endpoints.json holds the base URL's credential:\n%s", b)
	}
	if got := m.Get("http://user:s3cret@b/v1/chat/completions?key=s3cret", "m1"); got.Window != 8192 {
		t.Errorf("the same endpoint is found again: %+v", got)
	}
	var none *Memory
	if none.Get("x", "y") != (Remembered{}) || none.Update("x", "y", func(*Remembered) {}) != nil {
		t.Error("a nil Memory must keep nothing, quietly")
	}
}
