package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
)

// ServerConfinement is what the kernel lets one MCP server touch: the
// policy its launcher applies, where it keeps its state, and how to say it
// on a card or in a listing. Confined is false for sandbox = "none" and
// where the system cannot confine (then Unconfined says why).
type ServerConfinement struct {
	Mode     string // the server's config.Server.SandboxMode()
	Confined bool   // the kernel enforces Policy
	Policy   sandbox.Policy
	// StateDir is the server's own folder, the one place it may always
	// write (also its HOME and TMPDIR); "" when unconfined.
	StateDir string
	// Unconfined says why a server that asked for confinement runs without
	// it (the system cannot confine); "" otherwise.
	Unconfined string
}

// Confinement computes what s may touch, program being the absolute path
// its command resolves to ("" when unknown: the card is drawn before the
// spawner resolves it; then it is looked up on agentls's own PATH).
//
// A confined server may read and run programs from the system's trees
// (/usr, /bin, /lib...), the folders on PATH, its own program's folder (the
// package holding it, for a program inside node_modules) and the
// workspace; it may write only its state folder, and the workspace with
// sandbox = "workspace-write"; with network = false it may make no socket
// but a TCP one, and connect or listen on no port. Its home folder, your
// other projects, ~/.ssh, agentls's own state and /proc stay out of reach.
func Confinement(s config.Server, program string) ServerConfinement {
	c := ServerConfinement{Mode: s.SandboxMode()}
	if c.Mode == config.SandboxNone {
		return c
	}
	if sup := sandbox.Supported(); !sup.Filesystem {
		c.Unconfined = sup.Reason
		return c
	}
	if program == "" {
		program = resolveProgram(s)
	}
	c.Confined = true
	c.StateDir = ServerStateDir(s)
	var exec, write []string
	add := func(list *[]string, p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		for _, have := range *list {
			if have == p {
				return
			}
		}
		for _, sys := range sandbox.SystemExec() {
			if within(sys, p) {
				return // granted with the system's trees already
			}
		}
		*list = append(*list, p)
	}
	if s.WorkspaceRoot != "" {
		add(&exec, s.WorkspaceRoot)
	}
	// A cwd outside the workspace gets no grant of its own: the server
	// starts there but cannot read it (a user server's cwd is the folder
	// of the user's config, which may hold other servers' tokens).
	for _, dir := range programDirs(program) {
		add(&exec, dir)
	}
	for _, dir := range pathDirs(s) {
		add(&exec, dir)
	}
	if c.StateDir != "" {
		// Its own folder is also runnable: npx and pip install the server
		// there (HOME) and run it; what it runs inherits the confinement.
		add(&write, c.StateDir)
		add(&exec, c.StateDir)
	}
	if c.Mode == config.SandboxWorkspaceWrite && s.WorkspaceRoot != "" {
		add(&write, s.WorkspaceRoot)
	}
	c.Policy = sandbox.Policy{Exec: exec, Write: write, Network: s.Network}.WithSystem()
	return c
}

// Summary says in one line what the server may touch, for the launch card
// and `agentls mcp list`.
func (c ServerConfinement) Summary() string {
	switch {
	case c.Mode == config.SandboxNone:
		return "not confined (sandbox = \"none\"): it may read, write and connect to whatever you can"
	case !c.Confined:
		return "NOT confined on this system, it would run with your full access: sandbox = \"" + c.Mode + "\" needs Landlock (" + c.Unconfined + ")"
	}
	shown := c.Policy
	shown.Exec = nil // the state folder is said once, under writes
	for _, e := range c.Policy.Exec {
		if e != c.StateDir {
			shown.Exec = append(shown.Exec, e)
		}
	}
	sum := strings.Replace(shown.Summary(), "writes "+c.StateDir, "writes "+c.StateDir+" (its own folder: HOME, TMPDIR, may run what it puts there)", 1)
	out := "confined by the kernel (sandbox = \"" + c.Mode + "\"): " + sum + "; besides the system's programs and libraries"
	if !c.Policy.Network {
		switch sup := sandbox.Supported(); {
		case !sup.TCP && !sup.SocketFilter:
			out += "; WARNING: this kernel cannot limit the network (" + sup.String() + "), so network: none is not enforced"
		case !sup.SocketFilter:
			out += "; WARNING: only TCP is limited here (no socket filter for this architecture): UDP and unix sockets are not"
		}
	}
	return out
}

// ServerStateDir is the folder a confined server may write: under
// agentls's state folder, one per server name and workspace. "" when there
// is no state folder (no home).
func ServerStateDir(s config.Server) string {
	base := config.StateDir()
	if base == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(s.WorkspaceRoot))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s.Name)
	if len(name) > 64 {
		name = name[:64]
	}
	return filepath.Join(base, "mcp-servers", name+"-"+hex.EncodeToString(sum[:6]))
}

// programDirs is where the program at path lives, to be readable and
// runnable: its folder (as named and as its links resolve), and for a
// program inside node_modules the folder holding the outermost
// node_modules (the package tree it loads its dependencies from).
func programDirs(path string) []string {
	if path == "" {
		return nil
	}
	dirs := []string{filepath.Dir(path)}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return dirs
	}
	dirs = append(dirs, filepath.Dir(real))
	for _, p := range []string{path, real} {
		if i := strings.Index(p, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i > 0 {
			dirs = append(dirs, p[:i])
		}
	}
	return keepSafe(dirs)
}

// pathDirs are the absolute folders on the PATH the server gets (its
// declared PATH, else agentls's), so a program found there (node for an
// `#!/usr/bin/env node` script) can run.
func pathDirs(s config.Server) []string {
	path, ok := s.Env["PATH"]
	if !ok || strings.Contains(path, "$") {
		path = os.Getenv("PATH")
	}
	var dirs []string
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	return keepSafe(dirs)
}

// keepSafe drops folders that would open far more than a program's own
// files: the root, the home folder or anything above it, and anything
// holding agentls's state.
func keepSafe(dirs []string) []string {
	home, _ := os.UserHomeDir()
	state := config.StateDir()
	var out []string
	for _, d := range dirs {
		d = filepath.Clean(d)
		switch {
		case d == "/" || d == ".":
		case home != "" && within(d, home):
		case state != "" && within(d, state):
		default:
			out = append(out, d)
		}
	}
	return out
}

// resolveProgram finds the command of s the way the spawner will, on the
// declared PATH or agentls's; "" when it is not found.
func resolveProgram(s config.Server) string {
	if p := programPath(s.Command, s.Cwd); p != "" {
		return p
	}
	for _, dir := range pathDirs(s) {
		p := filepath.Join(dir, s.Command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
