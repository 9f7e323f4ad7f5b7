package trust

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
)

// TestLaunchChoiceIsPartOfTheApproval: each choice of a launch card
// approves its own fingerprint, the store finds the choice again from it,
// and an approval of one choice never starts the server under another.
// Entries that say how to confine themselves, and the user's own, offer
// no choice.
func TestLaunchChoiceIsPartOfTheApproval(t *testing.T) {
	if !sandbox.Supported().Filesystem {
		t.Skip("no Landlock here: no card offers choices (OffersChoices is false), checked below")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ed := config.Server{Name: "ed", Origin: config.Editor, WorkspaceRoot: "/ws", Command: "npx", Args: []string{"-y", "pkg"}}
	fps := map[string]LaunchChoice{}
	for _, c := range LaunchChoices(ed) {
		fps[ServerFingerprint(c.Apply(ed))] = c
	}
	if len(fps) != 3 {
		t.Fatalf("the three choices share fingerprints: %v", fps)
	}
	store := OpenStore(filepath.Join(t.TempDir(), "trust.json"))
	for fp, c := range fps {
		if err := store.ApproveLaunch(ed.WorkspaceRoot, ed.Name, fp); err != nil {
			t.Fatal(err)
		}
		st, run, err := store.ServerLaunch(ed)
		if err != nil || st != Trusted || ChoiceOf(ed, run) != c {
			t.Errorf("approved %q: %s, runs as %q (%v)", c, st, ChoiceOf(ed, run), err)
		}
		if c == ChoiceNetwork && (!run.Network || run.SandboxMode() == config.SandboxNone) {
			t.Errorf("allow with network runs %+v", run)
		}
		if c == ChoiceUnconfined && run.SandboxMode() != config.SandboxNone {
			t.Errorf("allow unconfined runs sandbox %q", run.SandboxMode())
		}
		if c == ChoiceConfined && (run.Network || run.SandboxMode() != config.SandboxWorkspaceRead) {
			t.Errorf("allow, confined runs %+v", run)
		}
	}
	changed := ed
	changed.Args = []string{"-y", "other"}
	if st, _, _ := store.ServerLaunch(changed); st != ApprovalStale {
		t.Errorf("a changed command under an approved choice is %s, want approval_stale", st)
	}
	for name, s := range map[string]config.Server{
		"a repository's entry with network = true": {Name: "n", Origin: config.Workspace, Command: "x", Network: true},
		"a repository's entry with a sandbox":      {Name: "s", Origin: config.Workspace, Command: "x", Sandbox: config.SandboxWorkspaceWrite},
		"the user's own server":                    {Name: "u", Origin: config.User, Command: "x"},
		"a remote server":                          {Name: "r", Origin: config.Editor, URL: "https://example.com/mcp"},
	} {
		if OffersChoices(s) || ChoiceUnconfined.Apply(s).SandboxMode() != s.SandboxMode() {
			t.Errorf("%s offers choices", name)
		}
	}
}
