package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestAutopilotGitAsksWhenTheRepositoryConfigRunsPrograms is the committed
// bare repository attack: a subfolder holding a bare repo whose config sets
// diff.external makes the "read-only" `git diff A B` run the repo's script.
// Under autopilot that must ask, not run; a plain repository still runs.
func TestAutopilotGitAsksWhenTheRepositoryConfigRunsPrograms(t *testing.T) {
	git := testenv.Tool(t, "git")
	tt := newToolTest(t)
	tt.env.Autopilot = true
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	work := filepath.Join(t.TempDir(), "w")
	run(t.TempDir(), "init", "-q", work)
	run(work, "commit", "-q", "--allow-empty", "-m", "one")
	writeFileT(t, filepath.Join(work, "f"), "hi\n")
	run(work, "add", "f")
	run(work, "commit", "-q", "-m", "two")
	bare := filepath.Join(tt.dir, "evil.git")
	run(tt.dir, "clone", "-q", "--bare", work, bare)
	marker := filepath.Join(t.TempDir(), "pwned")
	writeFileT(t, filepath.Join(tt.dir, "pwn.sh"), "#!/bin/sh\necho pwned > "+marker+"\n")
	if err := os.Chmod(filepath.Join(tt.dir, "pwn.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(bare, "config", "diff.external", filepath.Join(tt.dir, "pwn.sh"))

	tt.deny = true
	out, _, status := tt.call("run_command", `{"command":"git diff HEAD^ HEAD","cwd":"evil.git"}`)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("autopilot ran the repository's diff.external (%s %q)", status, out)
	}
	if status != "denied" || len(tt.asks) != 1 || !strings.Contains(tt.asks[0].Detail, "diff.external") {
		t.Fatalf("status %s, asks %d (%+v); want a card naming diff.external; output %q", status, len(tt.asks), tt.asks, out)
	}

	// The same repository reached with git -C from the workspace root: git
	// reads the config of the -C folder, so that is the one checked.
	for _, cmd := range []string{"git -C evil.git diff HEAD^ HEAD", "git -C . -C evil.git log -p", "git --no-pager -C evil.git diff HEAD^ HEAD"} {
		before := len(tt.asks)
		out, _, status := tt.call("run_command", `{"command":"`+cmd+`"}`)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: autopilot ran the repository's diff.external (%s %q)", cmd, status, out)
		}
		if status != "denied" || len(tt.asks) != before+1 || !strings.Contains(tt.asks[len(tt.asks)-1].Detail, "diff.external") {
			t.Errorf("%s: status %s, asks %d; want a card naming diff.external; output %q", cmd, status, len(tt.asks)-before, out)
		}
	}

	tt.deny = false
	before := len(tt.asks)
	run(bare, "config", "--unset", "diff.external")
	if out, isErr, _ := tt.call("run_command", `{"command":"git log --oneline","cwd":"evil.git"}`); isErr || !strings.Contains(out, "two") || len(tt.asks) != before {
		t.Errorf("a plain repository's git log under autopilot = %q, asks %d; want it run without a card", out, len(tt.asks)-before)
	}
}
