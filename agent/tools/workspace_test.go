package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfineKeepsFileToolsInsideTheWorkspace(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	writeFileT(t, filepath.Join(root, "src", "a.go"), "package a\n")
	writeFileT(t, filepath.Join(outside, "secret.txt"), "secret\n")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out")))
	must(os.Symlink(outside, filepath.Join(root, "dir-out")))
	must(os.Symlink(filepath.Join(root, "src", "a.go"), filepath.Join(root, "link-in")))

	tests := []struct {
		name, path string
		ok         bool
	}{
		{"relative path inside is allowed", "src/a.go", true},
		{"absolute path inside is allowed", filepath.Join(root, "src", "a.go"), true},
		{"the folder itself is allowed", ".", true},
		{"a file not yet created inside is allowed", "src/new/b.go", true},
		{"symlink within the workspace is allowed", "link-in", true},
		{"../ out of the workspace is refused", "../x", false},
		{"../ hidden in a longer path is refused", "src/../../x", false},
		{"absolute path outside is refused", "/etc/passwd", false},
		{"symlink to a file outside is refused", "link-out", false},
		{"path through a symlinked directory outside is refused", "dir-out/secret.txt", false},
		{"new file under a symlinked directory outside is refused", "dir-out/new.txt", false},
		{"empty path is refused", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := confine([]string{root}, tc.path)
			if tc.ok {
				if err != nil {
					t.Fatalf("confine(%q) = %v, want allowed", tc.path, err)
				}
				if !within(root, got.Real) {
					t.Errorf("real path %s is not under %s", got.Real, root)
				}
				return
			}
			if err == nil {
				t.Fatalf("confine(%q) = %+v, want refused", tc.path, got)
			}
			if tc.path != "" && !strings.Contains(err.Error(), "outside the workspace") {
				t.Errorf("error %q does not say the path is outside the workspace", err)
			}
		})
	}
}

func TestConfineAcceptsAnyOfSeveralFolders(t *testing.T) {
	a, _ := filepath.EvalSymlinks(t.TempDir())
	b, _ := filepath.EvalSymlinks(t.TempDir())
	writeFileT(t, filepath.Join(b, "x.txt"), "x")
	if _, err := confine([]string{a, b}, filepath.Join(b, "x.txt")); err != nil {
		t.Fatalf("a file in the second folder was refused: %v", err)
	}
	if _, err := confine(nil, "x.txt"); err == nil || !strings.Contains(err.Error(), "no workspace folder") {
		t.Fatalf("no folders: err = %v, want a clear refusal", err)
	}
}

// The disk write itself is held inside the workspace folder by the kernel
// (os.Root): a folder on the way that became a link out of the workspace
// after the last check (a rename race the check cannot close) makes the
// write fail, and nothing appears outside. A file linked inside the
// workspace is still written where the link leads.
func TestTheDiskWriteCannotLeaveTheWorkspace(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b.txt", "new/c.txt"} {
		err := writeDisk(target{Path: filepath.Join(ws, "sub", name), Real: filepath.Join(ws, "sub", name), Folder: ws}, "planted\n")
		if err == nil {
			t.Errorf("writeDisk of sub/%s through a link out of the workspace succeeded", name)
		}
		if _, serr := os.Stat(filepath.Join(outside, name)); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("%s appeared outside the workspace (%v; writeDisk said %v)", name, serr, err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "real.txt"), []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeDisk(target{Path: filepath.Join(ws, "real.txt"), Real: filepath.Join(ws, "real.txt"), Folder: ws}, "new\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "real.txt")); string(b) != "new\n" {
		t.Errorf("real.txt = %q, want it written", b)
	}
	if st, _ := os.Stat(filepath.Join(ws, "real.txt")); st.Mode().Perm() != 0o600 {
		t.Errorf("real.txt's mode = %v, want 0600 kept", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(ws, ".*agentls-*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
