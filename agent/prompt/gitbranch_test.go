package prompt

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestGitBranchReadsWhatGitPrints builds real repositories and holds the
// file reader to what git itself prints in each.
func TestGitBranchReadsWhatGitPrints(t *testing.T) {
	git := testenv.Tool(t, "git")
	run := func(t *testing.T, dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	repo := func(t *testing.T, branch string, commit bool) string {
		dir := filepath.Join(t.TempDir(), "repo")
		run(t, t.TempDir(), "init", "-q", "-b", branch, dir)
		if commit {
			run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
		}
		return dir
	}
	tests := []struct {
		name string
		// setup returns the folder to ask about.
		setup func(t *testing.T) string
		// fast: answered from the files, without running git.
		fast bool
		// abbrev: `git rev-parse --abbrev-ref HEAD` prints the same.
		abbrev bool
	}{
		{"a branch with commits is its name", func(t *testing.T) string { return repo(t, "main", true) }, true, true},
		{"a branch with no commit yet is its name", func(t *testing.T) string { return repo(t, "feature-x", false) }, true, false},
		{"a branch name with slashes is kept whole", func(t *testing.T) string { return repo(t, "feature/deep/x", true) }, true, true},
		{"a subdirectory of a repository has the repository's branch", func(t *testing.T) string {
			dir := repo(t, "sub-branch", true)
			sub := filepath.Join(dir, "a", "b")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			return sub
		}, true, true},
		{"a detached HEAD is the short hash git prints", func(t *testing.T) string {
			dir := repo(t, "main", true)
			run(t, dir, "checkout", "-q", "--detach")
			return dir
		}, false, false},
		{"a linked worktree follows its .git file to its own HEAD", func(t *testing.T) string {
			dir := repo(t, "main", true)
			wt := filepath.Join(t.TempDir(), "wt")
			run(t, dir, "worktree", "add", "-q", "-b", "wt-branch", wt)
			return wt
		}, true, true},
		{"a .git file with a relative gitdir resolves against the work tree", func(t *testing.T) string {
			base := t.TempDir()
			dir := filepath.Join(base, "work")
			run(t, base, "init", "-q", "-b", "rel-branch", "--separate-git-dir", filepath.Join(base, "store.git"), dir)
			run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
			if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: ../store.git\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, true, true},
		{"a branch named like a loose tag is shortened by git", func(t *testing.T) string {
			dir := repo(t, "v1", true)
			run(t, dir, "tag", "v1")
			return dir
		}, false, true},
		{"a branch named like a packed tag is shortened by git", func(t *testing.T) string {
			dir := repo(t, "v2", true)
			run(t, dir, "tag", "v2")
			run(t, dir, "pack-refs", "--all")
			return dir
		}, false, true},
		{"a HEAD git wrote differently is left to git", func(t *testing.T) string {
			dir := repo(t, "main", true)
			if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref:refs/heads/main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, false, true},
		{"a folder outside any repository has no branch", func(t *testing.T) string { return t.TempDir() }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			want := gitBranchRun(context.Background(), dir)
			if want != "" && tt.name == "a folder outside any repository has no branch" {
				t.Skipf("the temp directory is inside a repository (%q)", want)
			}
			if got := gitBranch(context.Background(), dir); got != want {
				t.Errorf("gitBranch = %q, git prints %q", got, want)
			}
			if _, ok := gitBranchFromFiles(dir); ok != tt.fast {
				t.Errorf("answered from the files: %v, want %v", ok, tt.fast)
			}
			if tt.abbrev && !strings.HasPrefix(want, "detached at ") {
				if ab := run(t, dir, "rev-parse", "--abbrev-ref", "HEAD"); ab != want {
					t.Errorf("git rev-parse --abbrev-ref HEAD = %q, gitBranch %q", ab, want)
				}
			}
		})
	}
}

func TestValidRefNameFollowsCheckRefFormat(t *testing.T) {
	for ref, want := range map[string]bool{
		"refs/heads/main":         true,
		"refs/heads/feature/x":    true,
		"refs/heads/.invalid":     false, // the reftable backend's placeholder
		"refs/heads/a..b":         false,
		"refs/heads/a b":          false,
		"refs/heads/x.lock":       false,
		"refs/heads/x/":           false,
		"refs/heads/a@{1}":        false,
		"refs/heads/a\x01":        false,
		"refs/heads/ignore: this": false,
		"refs//heads":             false,
	} {
		if got := validRefName(ref); got != want {
			t.Errorf("validRefName(%q) = %v, want %v", ref, got, want)
		}
	}
}

func TestGitBranchIsEmptyOutsideARepo(t *testing.T) {
	if br := gitBranch(context.Background(), t.TempDir()); br != "" {
		t.Errorf("gitBranch outside a repo = %q", br)
	}
}
