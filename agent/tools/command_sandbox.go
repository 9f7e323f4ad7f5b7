package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/trust"
)

// confinedCommand is a command autopilot runs without a card, rewritten to
// start under the kernel's confinement: it may read the workspace folders
// and the system's programs and libraries, write only a private temporary
// folder (removed afterwards), and use no network. The classifier decides
// what may skip the card; confinement makes a classifier miss harmless (a
// flag nobody listed that writes a file, runs a program or follows a link
// out of the workspace fails with a permission error the model sees).
type confinedCommand struct {
	argv []string
	env  []string
	tmp  string
}

// confinedNote ends the output of a confined command that failed, so the
// model knows why a write or a read outside the workspace was refused.
const confinedNote = "[ran without a card under autopilot, confined by the kernel: reads only the workspace and system files, writes nothing, no network; a permission error above means the command needs a card: run it without autopilot]"

// confineCommand wraps argv for a card-less run. It fails when this
// system or binary cannot confine; the caller then asks instead.
func confineCommand(argv []string, folders []string, env []string) (*confinedCommand, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s resolves to a relative path (%s)", argv[0], path)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	tmp, err := sandbox.PrivateTemp()
	if err != nil {
		return nil, err
	}
	var read []string
	for _, f := range folders {
		if real, err := filepath.EvalSymlinks(f); err == nil {
			read = append(read, real)
		}
	}
	p := sandbox.Policy{Read: read, Write: []string{tmp}}.WithSystem()
	exe, args, err := sandbox.Wrap(p, path, argv)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") && !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			out = append(out, kv)
		}
	}
	// The user's global git config lives in the home folder, which a
	// confined command cannot read (it may hold tokens in URLs or headers);
	// git would fail on the refused read, so it gets none.
	out = append(out, "TMPDIR="+tmp, "GIT_CONFIG_GLOBAL=/dev/null")
	return &confinedCommand{argv: append([]string{exe}, args[1:]...), env: out, tmp: tmp}, nil
}

// cannotConfine is the decision when autopilot would skip the card for a
// command it cannot back with confinement: it asks.
func cannotConfine(err error) trust.Decision {
	return trust.Decision{Action: trust.Ask, Reason: "asks even under autopilot: commands run without a card only under the kernel's confinement, which is not available here (" + err.Error() + ")"}
}
