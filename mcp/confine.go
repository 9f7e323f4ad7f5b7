package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/trust"
)

// confine rewrites a server's start so the kernel confines it to what
// trust.Confinement allows: the executable becomes agentls's launcher
// (which applies the rules between fork and exec), the server's state
// folder is made, and HOME and TMPDIR point into it unless the entry sets
// them (a confined server can write nowhere else, and npx, pip and caches
// then work there). An unconfined server starts as is.
//
// A server of the user's own config that asked for confinement (sandbox
// set) never starts unconfined: it fails, saying why. A repository's
// server or an editor's (confined by default) runs unconfined on a system
// without Landlock, which its launch card said before it was approved.
func confine(s config.Server, path string, argv, env []string) (string, []string, []string, error) {
	c := trust.Confinement(s, path)
	if !c.Confined {
		if c.Unconfined != "" && s.Origin == config.User {
			return "", nil, nil, fmt.Errorf("sandbox = %q: this system cannot confine the server (%s); set sandbox = \"none\" to run it unconfined", c.Mode, c.Unconfined)
		}
		return path, argv, env, nil
	}
	if c.StateDir == "" {
		return "", nil, nil, fmt.Errorf("sandbox = %q: no state folder for the server (agentls has no home or XDG_STATE_HOME)", c.Mode)
	}
	tmp := filepath.Join(c.StateDir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return "", nil, nil, fmt.Errorf("sandbox: the server's state folder: %w", err)
	}
	exe, args, err := sandbox.Wrap(c.Policy, path, argv)
	if err != nil {
		return "", nil, nil, err
	}
	out := make([]string, 0, len(env)+2)
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if (k == "HOME" || k == "TMPDIR") && !s.Declares(k) {
			continue
		}
		set[k] = true
		out = append(out, kv)
	}
	if !set["HOME"] {
		out = append(out, "HOME="+c.StateDir)
	}
	if !set["TMPDIR"] {
		out = append(out, "TMPDIR="+tmp)
	}
	return exe, args, out, nil
}
