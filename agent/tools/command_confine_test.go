package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"

	"github.com/agentls/agentls/wire"
)

// autopilotRepo is a workspace laid out like a hostile repository: a
// committed link out to a folder with a private key, a folder of links to
// another process's environment, a bare repository whose config names an
// external diff program, and a file of shell lines. outside holds the key.
type autopilotRepo struct {
	tt      *toolTest
	outside string
}

const (
	outsideSecret = "SECRET-OUTSIDE-WORKSPACE"
	procCanary    = "AGENTLS_CANARY_ENV_VALUE"
)

func newAutopilotRepo(t *testing.T) *autopilotRepo {
	t.Helper()
	testenv.Tool(t, "git")
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	tt.deny = true // a card is refused: only what runs without one can do harm
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	writeFileT(t, filepath.Join(outside, "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+outsideSecret+"\n")
	writeFileT(t, filepath.Join(outside, "list"), "")
	os.WriteFile(filepath.Join(tt.dir, "list0"), []byte(filepath.Join(outside, "id_ed25519")+"\x00"), 0o644)

	// A process whose environment holds a canary, as agentls's holds the API key.
	holder := exec.Command("sleep", "60")
	holder.Env = []string{"CANARY=" + procCanary}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })

	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeFileT(t, filepath.Join(tt.dir, "f.txt"), "needle one\nneedle two\n")
	writeFileT(t, filepath.Join(tt.dir, "shell.txt"), strings.Repeat("touch "+filepath.Join(tt.dir, "pwned-sort-compress")+"\n", 400))
	os.MkdirAll(filepath.Join(tt.dir, "docs"), 0o755)
	os.Symlink(outside, filepath.Join(tt.dir, "docs", "ref"))
	os.MkdirAll(filepath.Join(tt.dir, "envs"), 0o755)
	os.Symlink(fmt.Sprintf("/proc/%d/environ", holder.Process.Pid), filepath.Join(tt.dir, "envs", "e"))
	git(tt.dir, "init", "-q", "-b", "main")
	git(tt.dir, "add", "f.txt")
	git(tt.dir, "commit", "-q", "-m", "one")
	writeFileT(t, filepath.Join(tt.dir, "f.txt"), "needle one\nneedle two\nthree\n")
	git(tt.dir, "commit", "-q", "-am", "two")
	// vendor/x.git: a committed bare repository with a diff.external.
	bare := filepath.Join(tt.dir, "vendor", "x.git")
	git(tt.dir, "clone", "-q", "--bare", ".", bare)
	git(bare, "config", "diff.external", "touch "+filepath.Join(tt.dir, "pwned-diff-external")+"; :")
	return &autopilotRepo{tt: tt, outside: outside}
}

// harmed says what a command did that a command run without a card must
// never do: a file it wrote, or a byte from outside the workspace in out.
func (r *autopilotRepo) harmed(out string) string {
	var bad []string
	for _, dir := range []string{r.tt.dir, r.outside, filepath.Join(r.tt.dir, "vendor", "x.git")} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "pwned") {
				bad = append(bad, "wrote "+filepath.Join(dir, e.Name()))
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	if strings.Contains(out, outsideSecret) {
		bad = append(bad, "returned the private key from outside the workspace")
	}
	if strings.Contains(out, procCanary) {
		bad = append(bad, "returned another process's environment")
	}
	return strings.Join(bad, "; ")
}

// TestAutopilotCorpusRunsNothingHarmfulWithoutACard is the red-team corpus:
// commands an injected prompt would send under autopilot to write files,
// run programs or read outside the workspace, including flags nobody
// enumerated (abbreviated long options, values attached to short ones,
// git -C into a committed bare repository). Each either asks (refused here)
// or runs confined, where the kernel refuses the harm.
func TestAutopilotCorpusRunsNothingHarmfulWithoutACard(t *testing.T) {
	r := newAutopilotRepo(t)
	corpus := []struct {
		cmd   string
		shell bool
	}{
		{cmd: `git grep -O'touch pwned-O; echo' needle`},
		{cmd: `git grep '--open-files-in-pag=touch pwned-pag; echo' needle`},
		{cmd: `git grep --open-files-in-pager='touch pwned-pager; echo' needle`},
		{cmd: `git grep -Otouch needle`},
		{cmd: `sort --compress-prog=sh -S 1k shell.txt`},
		{cmd: `sort --compress-program=sh -S 1k shell.txt`},
		{cmd: `sort -opwned-o f.txt`},
		{cmd: `sort --outp=pwned-outp f.txt`},
		{cmd: `sort --output=pwned-output f.txt`},
		{cmd: `sort -o pwned-o2 f.txt`},
		{cmd: `sort -ro pwned-ro f.txt`},
		{cmd: `git -C vendor/x.git diff HEAD^ HEAD`},
		{cmd: `git --git-dir=vendor/x.git diff HEAD^ HEAD`},
		{cmd: `git log --outp=pwned-gitlog -1`},
		{cmd: `git diff --outpu=pwned-gitdiff HEAD^`},
		{cmd: `git log --ext-d -p -1`},
		{cmd: `tree -opwned-tree`},
		{cmd: `grep -R PRIVATE .`},
		{cmd: `grep -rn PRIVATE docs`},
		{cmd: `grep -R -a CANARY envs`},
		{cmd: `grep -r -a CANARY .`},
		{cmd: `sort --files0-from=list0`},
		{cmd: `wc --files0-from=list0`},
		{cmd: `du --files0-from=list0`},
		{cmd: `cat docs/ref/id_ed25519`},
		{cmd: `head docs/ref/id_ed25519`},
		{cmd: `find docs -follow -name id_ed25519`},
		{cmd: `find -L . -type f`},
		{cmd: `ls -laR docs/`},
		{cmd: `grep -R PRIVATE .`, shell: true},
		{cmd: `sort -opwned-sh f.txt`, shell: true},
		{cmd: `git grep -O'touch pwned-sh-O; echo' needle`, shell: true},
	}
	for _, c := range corpus {
		args, _ := jsonArgs(map[string]any{"command": c.cmd, "shell": c.shell})
		out, _, status := r.tt.call("run_command", args)
		if h := r.harmed(out); h != "" {
			t.Errorf("autopilot %q (shell %v) ran without a card (%s) and %s; output %q", c.cmd, c.shell, status, h, out)
		}
	}
}

// TestAutopilotRunsReadOnlyCommandsConfined: what a user expects autopilot
// to run without a card still runs, now under the kernel's confinement.
func TestAutopilotRunsReadOnlyCommandsConfined(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	r := newAutopilotRepo(t)
	for cmd, want := range map[string]string{
		"git status":            "On branch main",
		"git log -p":            "+three",
		"git log --oneline":     "two",
		"git diff HEAD^":        "+three",
		"git grep needle":       "f.txt:needle one",
		"grep -rn needle f.txt": "2:needle two",
		"ls":                    "f.txt",
		"cat f.txt":             "needle two",
		"sort f.txt":            "three",
		"wc -l f.txt":           "3 f.txt",
		"head -n 1 f.txt":       "needle one",
	} {
		before := len(r.tt.asks)
		args, _ := jsonArgs(map[string]any{"command": cmd})
		out, isErr, status := r.tt.call("run_command", args)
		if isErr || !strings.Contains(out, want) || len(r.tt.asks) != before {
			t.Errorf("autopilot %q = %s %q (asks %d); want it run without a card, printing %q", cmd, status, out, len(r.tt.asks)-before, want)
		}
		if h := r.harmed(out); h != "" {
			t.Errorf("%q: %s", cmd, h)
		}
	}
}

func jsonArgs(v map[string]any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// TestAutopilotCommandsNeverReachARefusedFolder: a workspace folder that
// holds the home directory is refused, and that holds for commands too.
// With a project and a parent of HOME open side by side, a committed link
// in the project into the home folder let autopilot's `grep -R` read it: the
// refused folder was still readable to the confined command and counted
// as inside the workspace.
func TestAutopilotCommandsNeverReachARefusedFolder(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	tt.deny = true
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(parent, "home")
	writeFileT(t, filepath.Join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=KEYMATERIAL\n")
	t.Setenv("HOME", home)
	tt.ws.folders = []string{tt.dir, parent}
	if err := os.Symlink(home, filepath.Join(tt.dir, "docs")); err != nil {
		t.Fatal(err)
	}
	out, _, status := tt.call("run_command", `{"command":"grep -R KEYMATERIAL ."}`)
	if strings.Contains(out, "KEYMATERIAL") {
		t.Fatalf("autopilot grep -R read the home folder through a refused workspace folder (%s): %q", status, out)
	}
}
