package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/trust"
)

// confinedCommand is a command autopilot runs without a card, to start
// under the kernel's confinement: it may read the workspace folders, the
// system's programs and libraries, and run what a confined server may
// (its program's folder, agentls's PATH, the toolchain managers' roots and
// the user's [sandbox] read: trust.CommandExec), write only a private temporary folder
// of its own (removed afterwards), and use no network. The classifier
// decides what may skip the card; confinement makes a classifier miss
// harmless (a flag nobody listed that writes a file, runs a program or
// follows a link out of the workspace fails with a permission error the
// model sees).
type confinedCommand struct {
	policy sandbox.Policy
	path   string
	argv   []string
	env    []string
}

// confinedNote ends the output of a confined command that failed, so the
// model knows why a write or a read outside the workspace was refused.
const confinedNote = "[ran without a card under autopilot, confined by the kernel: reads only the workspace, the system's files and programs and the toolchains on PATH, writes nothing, no network; a permission error above means the command needs a card: run it without autopilot]"

// confineCommand prepares argv for a card-less run. It fails when this
// system or binary cannot confine; the caller then asks instead.
func confineCommand(argv []string, folders []string, env []string, named []string) (*confinedCommand, error) {
	if err := sandbox.CanSpawn(); err != nil {
		return nil, err
	}
	// Without the seccomp filter (an architecture it is not written for)
	// Landlock alone leaves unix sockets and UDP open: an ssh-agent or
	// docker.sock would be one connect away, so the command asks instead.
	if s := sandbox.Supported(); !s.SocketFilter {
		return nil, fmt.Errorf("the kernel can confine files here but not sockets (%s)", s)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s resolves to a relative path (%s)", argv[0], path)
	}
	exec := trust.CommandExec(path, named)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	var read []string
	for _, f := range folders {
		if real, err := filepath.EvalSymlinks(f); err == nil {
			read = append(read, real)
		}
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") && !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			out = append(out, kv)
		}
	}
	// The user's global git config lives in the home folder, which a
	// confined command cannot read (it may hold tokens in URLs or headers);
	// git would fail on the refused read, so it gets none. TMPDIR is set
	// by the launcher to the command's own folder.
	out = append(out, "GIT_CONFIG_GLOBAL=/dev/null")
	// Behind guardGit's check of every repository's config: whatever
	// config a git in this command meets (a submodule's, one written
	// since the check), it runs no fsmonitor hook, the setting git
	// runs on every status and diff. Config from the environment
	// outranks the repository's, and git hands it to the git it starts
	// in a submodule.
	out = withGitConfig(out, "core.fsmonitor", "false")
	return &confinedCommand{policy: sandbox.Policy{Read: read, Exec: exec}.WithSystem(), path: path, argv: argv, env: out}, nil
}

// run runs c in dir like runProcess, started by the sandbox's long-lived
// launcher (no launcher start per command).
func (c *confinedCommand) run(ctx context.Context, dir string, timeout time.Duration, max int) (procResult, error) {
	return runStarted(ctx, func(out *os.File) (started, error) {
		p, err := sandbox.Spawn(c.policy, sandbox.Cmd{Path: c.path, Args: c.argv, Dir: dir, Env: c.env, Stdout: out, Stderr: out, Grace: killGrace})
		if err != nil {
			return started{}, err
		}
		return started{group: p, wait: p.Wait}, nil
	}, timeout, max)
}

// cannotConfine is the decision when autopilot would skip the card for a
// command it cannot back with confinement: it asks.
func cannotConfine(err error) trust.Decision {
	return trust.Decision{Action: trust.Ask, Reason: "asks even under autopilot: commands run without a card only under the kernel's confinement, which is not available here (" + err.Error() + ")"}
}

// withGitConfig adds key=value to env's GIT_CONFIG_COUNT settings (after
// any already there, which are kept).
func withGitConfig(env []string, key, value string) []string {
	n := 0
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c > 0 {
				n = c
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, value), fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+1))
}
