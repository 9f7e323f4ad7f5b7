package trust

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func zlist(entries ...string) []byte { return []byte(strings.Join(entries, "\x00") + "\x00") }

// TestGitConfigRisks pins which repository-scope git settings make a
// read-only git command run a program: a repository shipped as an archive,
// or a bare repository committed in a subfolder, carries its own config.
func TestGitConfigRisks(t *testing.T) {
	tests := []struct {
		name  string
		list  []byte
		risky []string // keys expected in the reasons; nil: none
	}{
		{"a fresh clone's config is fine", zlist("local", "core.repositoryformatversion\n0", "local", "core.filemode\ntrue", "local", "core.bare\nfalse",
			"local", "core.logallrefupdates\ntrue", "local", "remote.origin.url\nhttps://example.com/x.git", "local", "remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*",
			"local", "branch.main.remote\norigin", "local", "branch.main.merge\nrefs/heads/main"), nil},
		{"what git submodule add writes is inert", zlist("local", "core.worktree\n../../../sub", "local", "submodule.sub.url\n/src", "local", "submodule.sub.active\ntrue"), nil},
		{"the user's own config is trusted", zlist("global", "core.pager\nless", "system", "credential.helper\nstore", "global", "diff.tool.textconv\nx"), nil},
		{"diff.external runs a program", zlist("local", "diff.external\n./pwn.sh"), []string{"diff.external"}},
		{"core.fsmonitor runs a program", zlist("local", "core.fsmonitor\n./pwn.sh"), []string{"core.fsmonitor"}},
		{"a textconv driver runs a program", zlist("local", "diff.x.textconv\n./pwn.sh"), []string{"diff.x.textconv"}},
		{"a clean filter runs a program", zlist("worktree", "filter.x.clean\n./pwn.sh"), []string{"filter.x.clean"}},
		{"gpg.program runs with log.showSignature", zlist("local", "log.showsignature\ntrue", "local", "gpg.program\n./pwn.sh"), []string{"log.showsignature", "gpg.program"}},
		{"a submodule update command is not a plain setting", zlist("local", "submodule.a.update\n!./pwn.sh"), []string{"submodule.a.update"}},
		{"an unknown local key asks (over-flag)", zlist("local", "core.hookspath\n."), []string{"core.hookspath"}},
		{"a key with no value is still checked", zlist("local", "core.pager"), []string{"core.pager"}},
		{"a subsection with dots is read by its last part", zlist("local", "remote.a.b.url\nx", "local", "remote.a.b.uploadpack\n./pwn.sh"), []string{"remote.a.b.uploadpack"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := GitConfigRisks(tt.list)
			if len(tt.risky) == 0 {
				if len(got) != 0 {
					t.Fatalf("flagged %v, want nothing", got)
				}
				return
			}
			if len(got) != len(tt.risky) {
				t.Fatalf("flagged %v, want %v", got, tt.risky)
			}
			for i, k := range tt.risky {
				if !strings.Contains(got[i], k) {
					t.Errorf("reason %q does not name %s", got[i], k)
				}
			}
		})
	}
}

// TestGitConfigRisksReadsRealGit checks the parser against what git prints
// for a bare repository whose config sets diff.external.
func TestGitConfigRisksReadsRealGit(t *testing.T) {
	git := testenv.Tool(t, "git")
	dir := filepath.Join(t.TempDir(), "evil.git")
	for _, args := range [][]string{{"init", "-q", "--bare", dir}, {"-C", dir, "config", "diff.external", "./pwn.sh"}} {
		if out, err := exec.Command(git, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command(git, "config", "--list", "--show-scope", "-z")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := GitConfigRisks(out)
	if !strings.Contains(strings.Join(got, "\n"), "diff.external") {
		t.Fatalf("GitConfigRisks missed diff.external in real git output: %v", got)
	}
}
