package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// Every command that loads a config stops, with exit 1 and the reason on
// stderr, when a config file exists but is not valid TOML or cannot be
// read: scripts and editors' health checks read exit codes, and going on
// with defaults would list "no servers" or talk to another model.
func TestUnusableConfigStopsEveryCommand(t *testing.T) {
	bin := testenv.Agentls(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[model]\nname = \"x\"\n[mcp.servers.files\ncommand = \"y\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte("[mcp.servers.files]\ncommand = \"true\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "a-folder.toml")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	// A workspace whose .agentls/config.toml is not TOML.
	badWS := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(badWS, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(badWS, ".agentls", "config.toml"), []byte("[mcp.servers.repo]\ncommand = = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	okWS := t.TempDir()

	for _, tc := range []struct {
		name       string
		args       []string
		env        string // AGENTLS_CONFIG
		dir        string // working directory, okWS when empty
		stderr     string // what stderr must carry
		stdout     string // what stdout must carry ("" : nothing at all)
		stdoutNone string // what stdout must not carry
	}{
		{"mcp list --config", []string{"mcp", "list", "--config", bad}, "", "",
			"agentls mcp list: config: " + bad + ":3:", "", ""},
		{"mcp list --json from AGENTLS_CONFIG", []string{"mcp", "list", "--json"}, bad, "",
			"invalid TOML", "", ""},
		{"mcp list with a config that is a folder", []string{"mcp", "list", "--config", folder}, "", "",
			"agentls mcp list: config: " + folder + ": cannot read config file", "", ""},
		{"mcp list in a workspace whose config is not TOML", []string{"mcp", "list", "--config", good, "--workspace", badWS}, "", "",
			"agentls mcp list: config: " + filepath.Join(badWS, ".agentls", "config.toml") + ":2:", "", ""},
		{"run", []string{"run", "--config", bad, "say hi"}, "", "",
			"agentls run: config: " + bad + ":3:", "", ""},
		{"mcp trust", []string{"mcp", "trust", "files", "--config", bad}, "", "",
			"agentls mcp trust: config: " + bad + ":3:", "", ""},
		{"mcp login", []string{"mcp", "login", "files"}, bad, "",
			"agentls mcp login: config: " + bad + ":3:", "", ""},
		{"serve", []string{"serve", "--config", bad}, "", "",
			"agentls serve: config: " + bad + ":3:", "", ""},
		{"serve from AGENTLS_CONFIG", nil, bad, "",
			"agentls serve: config: " + bad + ":3:", "", ""},
		{"acp", []string{"acp", "--config", bad}, "", "",
			"agentls acp: config: " + bad + ":3:", "", ""},
		{"doctor reports it and exits 1", []string{"doctor", "--config", bad}, "", "",
			"", bad + ":3:", "Everything is usable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tc.args...)
			cmd.Dir = okWS
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
				"XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg-config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
				"AGENTLS_CONFIG=" + tc.env}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != 1 {
				t.Errorf("exit %d, want 1\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q does not carry %q", stderr.String(), tc.stderr)
			}
			if tc.stdout == "" && stdout.Len() > 0 {
				t.Errorf("stdout %q: want nothing (no list, no answer)", stdout.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) || (tc.stdoutNone != "" && strings.Contains(stdout.String(), tc.stdoutNone)) {
				t.Errorf("stdout %q: want %q and not %q", stdout.String(), tc.stdout, tc.stdoutNone)
			}
		})
	}
}
