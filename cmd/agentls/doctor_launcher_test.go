package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

// TestDoctorNamesTheLauncher: the real agentls uses the agentls-sandbox
// built beside it, and falls back to re-executing itself (which confines
// just the same, only slower) when that file is missing, is not the
// launcher, or comes from another build; doctor says which.
func TestDoctorNamesTheLauncher(t *testing.T) {
	if !sandbox.Supported().Filesystem {
		testenv.Missing(t, "Landlock", "run on Linux 5.13 or later with Landlock enabled")
	}
	bin := testenv.Agentls(t)
	launcher := testenv.SandboxLauncher(t)
	install := func(t *testing.T, beside func(dir string)) string {
		dir := t.TempDir()
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "agentls"), b, 0o755); err != nil {
			t.Fatal(err)
		}
		if beside != nil {
			beside(dir)
		}
		return filepath.Join(dir, "agentls")
	}
	copyLauncher := func(src string) func(string) {
		return func(dir string) {
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "agentls-sandbox"), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	apart := filepath.Join(t.TempDir(), "agentls-sandbox")
	build := exec.Command("go", "build", "-ldflags=-X main.built=apart", "-o", apart, "./cmd/agentls-sandbox")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name   string
		beside func(dir string)
		want   string
	}{
		{"built together", copyLauncher(launcher), "launcher          agentls-sandbox ("},
		{"missing", nil, "launcher          agentls itself, re-executed (slower start: no agentls-sandbox beside"},
		{"a script", func(dir string) {
			os.WriteFile(filepath.Join(dir, "agentls-sandbox"), []byte("#!/bin/sh\nshift 3\nexec \"$@\"\n"), 0o755)
		}, "launcher          agentls itself, re-executed (slower start: " /* not a Go program */},
		{"built apart", copyLauncher(apart), "was built apart from this agentls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := install(t, tc.beside)
			dir := t.TempDir()
			cfg := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(cfg, []byte("[agent]\nautopilot = true\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "doctor", "--config", cfg, "--workspace", dir)
			cmd.Env = append(os.Environ(), "OLLAMA_HOST=127.0.0.1:1", "XDG_STATE_HOME="+filepath.Join(dir, "state"))
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("doctor output lacks %q:\n%s", tc.want, out)
			}
		})
	}
}
