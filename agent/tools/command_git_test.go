package tools

import (
	"github.com/agentls/agentls/internal/sandbox"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"

	"github.com/agentls/agentls/wire"
)

// TestAutopilotGitAsksWhenTheRepositoryConfigRunsPrograms is the committed
// bare repository attack: a subfolder holding a bare repo whose config sets
// diff.external makes the "read-only" `git diff A B` run the repo's script.
// Under autopilot that must ask, not run; a plain repository still runs.
func TestAutopilotGitAsksWhenTheRepositoryConfigRunsPrograms(t *testing.T) {
	git := testenv.Tool(t, "git")
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
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

// hostileHook is a core.fsmonitor value that shows it ran: git runs it
// with a shell, so it needs no executable file (a script in the
// workspace could not be executed under confinement; sh can).
func hostileHook(marker string) string {
	return "echo PWNED-by-fsmonitor >&2; echo ran > " + marker + "; false"
}

// gitT runs git in dir for a test's setup, with no user config.
func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// withSubmodule makes top a repository whose folder sub is a real
// submodule (cloned from a repository outside the workspace), committed.
func withSubmodule(t *testing.T, top, sub string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	gitT(t, t.TempDir(), "init", "-q", "-b", "main", src)
	writeFileT(t, filepath.Join(src, "s.txt"), "in the submodule\n")
	gitT(t, src, "add", "s.txt")
	gitT(t, src, "commit", "-q", "-m", "s")
	gitT(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, sub)
	gitT(t, top, "commit", "-q", "-m", "add "+sub)
}

// TestAutopilotGitReadsEveryConfigGitWill is the submodule attack: `git
// status` starts git in every submodule, and that git reads the
// submodule's own config, so a core.fsmonitor there ran under autopilot
// with no card while the top repository's config was clean. Every config
// git reads (a submodule's, one it includes, a worktree's config.worktree,
// one a .git file points to, a submodule's submodule, one GIT_DIR names)
// is checked, or the command asks. The hook never runs and the card names
// the setting and where it is.
func TestAutopilotGitReadsEveryConfigGitWill(t *testing.T) {
	testenv.Tool(t, "git")
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	cases := []struct {
		name  string
		cmd   string
		cwd   string
		setup func(t *testing.T, top, marker string)
		where string // in the card: the folder whose config sets it
	}{
		{"a submodule's own config", "git status", ".", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "sub")
			gitT(t, filepath.Join(top, "sub"), "config", "core.fsmonitor", hostileHook(marker))
		}, "sub"},
		{"git diff reads it too", "git diff", ".", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "sub")
			gitT(t, filepath.Join(top, "sub"), "config", "core.fsmonitor", hostileHook(marker))
		}, "sub"},
		{"from a subfolder of the top repository", "git status", "docs", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "lib/sub")
			os.MkdirAll(filepath.Join(top, "docs"), 0o755)
			gitT(t, filepath.Join(top, "lib", "sub"), "config", "core.fsmonitor", hostileHook(marker))
		}, "lib/sub"},
		{"a file a submodule's config includes (includeIf)", "git status", ".", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "sub")
			writeFileT(t, filepath.Join(top, ".git", "modules", "sub", "extra.cfg"), "[core]\n\tfsmonitor = \""+hostileHook(marker)+"\"\n")
			gitT(t, filepath.Join(top, "sub"), "config", "includeIf.gitdir:**/modules/sub.path", "extra.cfg")
		}, "sub"},
		{"a submodule's config.worktree", "git status", ".", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "sub")
			gitT(t, filepath.Join(top, "sub"), "config", "extensions.worktreeConfig", "true")
			gitT(t, filepath.Join(top, "sub"), "config", "--worktree", "core.fsmonitor", hostileHook(marker))
		}, "sub"},
		{"a submodule whose .git file points elsewhere", "git status", ".", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "sub")
			hidden := filepath.Join(top, "assets", "data")
			os.MkdirAll(filepath.Join(top, "assets"), 0o755)
			if err := os.Rename(filepath.Join(top, ".git", "modules", "sub"), hidden); err != nil {
				t.Fatal(err)
			}
			writeFileT(t, filepath.Join(top, "sub", ".git"), "gitdir: ../assets/data\n")
			gitT(t, top, "config", "--file", filepath.Join(hidden, "config"), "core.worktree", "../../sub")
			gitT(t, filepath.Join(top, "sub"), "config", "core.fsmonitor", hostileHook(marker))
		}, "sub"},
		{"a submodule's submodule", "git status", ".", func(t *testing.T, top, marker string) {
			withSubmodule(t, top, "sub")
			withSubmodule(t, filepath.Join(top, "sub"), "inner")
			gitT(t, top, "commit", "-q", "-am", "bump sub")
			gitT(t, filepath.Join(top, "sub", "inner"), "config", "core.fsmonitor", hostileHook(marker))
		}, "sub/inner"},
		{"a nested repository the command runs in", "git status", "nested", func(t *testing.T, top, marker string) {
			gitT(t, top, "init", "-q", "nested")
			gitT(t, filepath.Join(top, "nested"), "config", "core.fsmonitor", hostileHook(marker))
		}, "nested"},
		{"the top repository's includeIf", "git status", ".", func(t *testing.T, top, marker string) {
			writeFileT(t, filepath.Join(top, "settings.cfg"), "[core]\n\tfsmonitor = \""+hostileHook(marker)+"\"\n")
			gitT(t, top, "config", "includeIf.onbranch:main.path", "../settings.cfg")
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tt := newToolTest(t)
			tt.env.Mode = modeIs(wire.ModeAutopilot)
			tt.deny = true
			marker := filepath.Join(tt.dir, "pwned")
			gitT(t, tt.dir, "init", "-q", "-b", "main")
			writeFileT(t, filepath.Join(tt.dir, "t.txt"), "top\n")
			gitT(t, tt.dir, "add", "t.txt")
			gitT(t, tt.dir, "commit", "-q", "-m", "top")
			c.setup(t, tt.dir, marker)
			args, _ := jsonArgs(map[string]any{"command": c.cmd, "cwd": c.cwd})
			out, _, status := tt.call("run_command", args)
			if _, err := os.Stat(marker); err == nil || strings.Contains(out, "PWNED") {
				t.Fatalf("autopilot %q ran the hostile core.fsmonitor without a card (%s): %q", c.cmd, status, out)
			}
			if status != "denied" || len(tt.asks) != 1 || !strings.Contains(tt.asks[0].Detail, "fsmonitor") || !strings.Contains(tt.asks[0].Detail, c.where) {
				t.Fatalf("status %s, asks %d (%+v); want one card naming core.fsmonitor in %q; output %q", status, len(tt.asks), tt.asks, c.where, out)
			}
		})
	}
}

// TestAutopilotGitUnderGitDirFromTheEnvironment: agentls started from a
// git hook has GIT_DIR set, and every git the model runs uses that
// repository; its config is the one checked.
func TestAutopilotGitUnderGitDirFromTheEnvironment(t *testing.T) {
	testenv.Tool(t, "git")
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	tt.deny = true
	gitT(t, tt.dir, "init", "-q", "-b", "main")
	gitT(t, tt.dir, "commit", "-q", "--allow-empty", "-m", "top")
	evil := filepath.Join(tt.dir, "vendor", "x.git")
	gitT(t, tt.dir, "clone", "-q", "--bare", ".", evil)
	marker := filepath.Join(tt.dir, "pwned")
	gitT(t, evil, "config", "core.fsmonitor", hostileHook(marker))
	t.Setenv("GIT_DIR", evil)
	t.Setenv("GIT_WORK_TREE", tt.dir)
	out, _, status := tt.call("run_command", `{"command":"git status"}`)
	if _, err := os.Stat(marker); err == nil || strings.Contains(out, "PWNED") {
		t.Fatalf("autopilot git status ran GIT_DIR's core.fsmonitor without a card (%s): %q", status, out)
	}
	if status != "denied" || len(tt.asks) != 1 || !strings.Contains(tt.asks[0].Detail, "fsmonitor") {
		t.Fatalf("status %s, asks %d (%+v); want a card naming core.fsmonitor; output %q", status, len(tt.asks), tt.asks, out)
	}
}

// TestAutopilotGitWithPlainSubmodulesRunsWithoutACard: what `git
// submodule add` writes (core.worktree, submodule.NAME.url and active) is
// inert, so a repository with ordinary submodules still runs git status
// under autopilot, confined, and shows the submodule's change.
func TestAutopilotGitWithPlainSubmodulesRunsWithoutACard(t *testing.T) {
	testenv.Tool(t, "git")
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	gitT(t, tt.dir, "init", "-q", "-b", "main")
	gitT(t, tt.dir, "commit", "-q", "--allow-empty", "-m", "top")
	withSubmodule(t, tt.dir, "sub")
	withSubmodule(t, filepath.Join(tt.dir, "sub"), "inner")
	gitT(t, tt.dir, "commit", "-q", "-am", "bump sub")
	writeFileT(t, filepath.Join(tt.dir, "sub", "inner", "s.txt"), "changed\n")
	out, isErr, status := tt.call("run_command", `{"command":"git status"}`)
	if isErr || len(tt.asks) != 0 || !strings.Contains(out, "modified:   sub (modified content)") {
		t.Fatalf("git status with plain submodules = %s %q (asks %+v); want it run without a card", status, out, tt.asks)
	}
}
