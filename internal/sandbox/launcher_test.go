package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestDedicatedLauncherConfines runs the confinement tests again through
// agentls-sandbox, the small launcher the installed agentls starts: the
// same rules must hold whichever program applies them.
func TestDedicatedLauncherConfines(t *testing.T) {
	needLandlock(t)
	launcher := testenv.SandboxLauncher(t)
	if err := UseLauncher(launcher); err != nil {
		t.Fatalf("UseLauncher(%s): %v", launcher, err)
	}
	t.Cleanup(func() { UseLauncher("") })
	exe, _, err := Wrap(Policy{}, "/bin/true", []string{"true"})
	if err != nil || exe != launcher {
		t.Fatalf("Wrap starts %q (%v), want the dedicated launcher %s", exe, err, launcher)
	}
	t.Run("reads only the workspace", TestConfinedReadsOnlyTheWorkspace)
	t.Run("writes nothing outside Write", TestConfinedWritesNothingOutsideWrite)
	t.Run("cannot run workspace programs", TestConfinedCannotRunWorkspacePrograms)
	t.Run("network", TestConfinedNetwork)
	t.Run("never runs unconfined", TestLauncherNeverRunsUnconfined)
}

// TestLauncherRefusesUnknownPolicyFields: a launcher older than the agentls
// that starts it must not drop a rule it does not know.
func TestLauncherRefusesUnknownPolicyFields(t *testing.T) {
	launcher := testenv.SandboxLauncher(t)
	out, err := exec.Command(launcher, launcherArg, `{"exec":["/usr","/bin","/lib","/lib64"],"deny_everything":true}`, "/bin/echo", "echo", "RAN").CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != launcherFailed || strings.Contains(string(out), "RAN") {
		t.Fatalf("policy with an unknown field: %v, output %q; want exit %d and no run", err, out, launcherFailed)
	}
}

// TestLauncherCheck: only a launcher built as agentls-sandbox, which only
// its owner can change, is used; anything else means falling back to
// agentls itself. (That it must also come from agentls's own build is
// TestDoctorNamesTheLauncher in cmd/agentls, with the real binary.)
func TestLauncherCheck(t *testing.T) {
	real := testenv.SandboxLauncher(t)
	self := testenv.Agentls(t)
	if err := checkLauncher(real, self, false); err != nil {
		t.Fatalf("the launcher built beside agentls is refused: %v", err)
	}
	dir := t.TempDir()
	copyTo := func(src, name string, mode os.FileMode) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nshift 3\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := testenv.GoBinary(t, "./internal/faultserver")
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "none"), "no agentls-sandbox"},
		{"a script that runs the target unconfined", script, "not a Go program"},
		{"another Go program", other, "not github.com/agentls/agentls/cmd/agentls-sandbox"},
		{"agentls itself", self, "not github.com/agentls/agentls/cmd/agentls-sandbox"},
		{"writable by others", copyTo(real, "writable", 0o777), "may be changed by others"},
		{"not executable", copyTo(real, "plain", 0o644), "not an executable"},
		{"a directory", dir, "not an executable"},
	} {
		err := checkLauncher(tc.path, self, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: checkLauncher = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
