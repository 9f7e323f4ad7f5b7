package sandbox

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
)

// LauncherName is the dedicated launcher's file name: agentls looks for it
// beside its own executable (go install ./cmd/... and the release put it
// there).
const LauncherName = "agentls-sandbox"

// launcherMain is the dedicated launcher's main package.
const launcherMain = "github.com/agentls/agentls/cmd/agentls-sandbox"

// LauncherInfo says which program applies the rules.
type LauncherInfo struct {
	// Path is the program Wrap starts: the dedicated launcher, or this
	// executable re-executed as the launcher.
	Path string
	// Dedicated is true when Path is agentls-sandbox.
	Dedicated bool
	// Why says, when Dedicated is false, why agentls-sandbox is not used.
	Why string
}

// String is the one-line answer for `agentls doctor`.
func (l LauncherInfo) String() string {
	if l.Dedicated {
		return LauncherName + " (" + l.Path + ")"
	}
	return "agentls itself, re-executed (slower start: " + l.Why + ")"
}

var (
	launcherMu       sync.Mutex
	launcherOverride string
	launcherFound    *LauncherInfo
)

// Launcher reports which program confines: agentls-sandbox beside this
// executable when it is there and was built together with it (same
// module version, source revision, Go version and link flags), else this
// executable itself. Both apply the same rules in the child between fork
// and exec; the dedicated one only starts faster. It is worked out once.
func Launcher() (LauncherInfo, error) {
	launcherMu.Lock()
	defer launcherMu.Unlock()
	if launcherOverride != "" {
		return LauncherInfo{Path: launcherOverride, Dedicated: true}, nil
	}
	if launcherFound != nil {
		return *launcherFound, nil
	}
	self, err := os.Executable()
	if err != nil {
		return LauncherInfo{}, fmt.Errorf("sandbox: find the launcher: %w", err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	info := LauncherInfo{Path: self}
	cand := filepath.Join(filepath.Dir(self), LauncherName)
	if err := checkLauncher(cand, self, true); err != nil {
		info.Why = err.Error()
	} else {
		info = LauncherInfo{Path: cand, Dedicated: true}
	}
	launcherFound = &info
	return info, nil
}

func launcher() (string, error) {
	l, err := Launcher()
	return l.Path, err
}

// UseLauncher makes Wrap start the agentls-sandbox at path, for tests and
// benchmarks whose own binary (a test binary) has no launcher beside it.
// The file is checked like the one found beside agentls, except that its
// build need not match this binary's (a test binary carries no source
// revision). An empty path goes back to finding the launcher.
func UseLauncher(path string) error {
	if path != "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		if err := checkLauncher(path, self, false); err != nil {
			return err
		}
	}
	launcherMu.Lock()
	defer launcherMu.Unlock()
	launcherOverride = path
	launcherFound = nil
	return nil
}

// checkLauncher accepts path as the launcher only when it is a regular
// executable file that nobody but its owner may change, owned by root or
// by the owner of self, and whose embedded build information names the
// agentls-sandbox main package (a stray file of that name, a script or
// another program is refused). With sameBuild, its module version, source
// revision, Go version and link flags must also equal self's: a launcher
// left from another version of agentls is not used. Refusal only means
// falling back to self, which confines just the same.
func checkLauncher(path, self string, sameBuild bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no %s beside %s", LauncherName, self)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s may be changed by others than its owner (mode %v)", path, fi.Mode().Perm())
	}
	if err := ownedLikeSelf(fi, self); err != nil {
		return fmt.Errorf("%s %w", path, err)
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s is not a Go program built by go build: %v", path, err)
	}
	if bi.Path != launcherMain {
		return fmt.Errorf("%s is %q, not %s", path, bi.Path, launcherMain)
	}
	if !sameBuild {
		return nil
	}
	own, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("this binary carries no build information to match the launcher against")
	}
	if a, b := buildKey(own), buildKey(bi); a != b {
		return fmt.Errorf("%s was built apart from this agentls (%s, not %s)", path, b, a)
	}
	return nil
}

// buildKey is what two binaries built from the same source at the same
// time share.
func buildKey(bi *debug.BuildInfo) string {
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	return fmt.Sprintf("module %s %s %s, %s, revision %q modified %q time %q, ldflags %q",
		bi.Main.Path, bi.Main.Version, bi.Main.Sum, bi.GoVersion,
		set["vcs.revision"], set["vcs.modified"], set["vcs.time"], set["-ldflags"])
}
