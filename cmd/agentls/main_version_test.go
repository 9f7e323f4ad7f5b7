package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// scripts/release.sh stamps the version with -ldflags "-X main.version=..."
// and builds with -trimpath: the stamped binary must print that version, and
// must not carry the path of the tree it was built in.
func TestReleaseBuildIsStampedAndTrimmed(t *testing.T) {
	const stamp = "v9.8.7-3-gabcdef0-dirty"
	bin := filepath.Join(t.TempDir(), "agentls")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version="+stamp, "-o", bin, "./cmd/agentls")
	build.Dir = testenv.RepoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, arg := range []string{"version", "--version", "-v"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil || strings.TrimSpace(string(out)) != "agentls "+stamp {
			t.Errorf("agentls %s = %q, %v; want %q", arg, out, err, "agentls "+stamp)
		}
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if root := testenv.RepoRoot(); bytes.Contains(b, []byte(root+"/")) {
		t.Errorf("the binary names the build tree %s: -trimpath did not apply", root)
	}
}
