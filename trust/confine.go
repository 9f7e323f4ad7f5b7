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
// package holding it, for a program inside node_modules), the toolchain
// managers' install roots (ToolchainDirs), the folders the user's config
// names ([sandbox] read) and the workspace; it may write only its state
// folder, and the workspace with sandbox = "workspace-write"; with network
// = false it may make no socket but a TCP one, and connect or listen on no
// port. Its home folder, your other projects, ~/.ssh and the other secret
// folders (config.SecretDirs), agentls's own config and state and /proc stay out
// of reach: no folder a repository or an editor names (its PATH, its
// command) opens them, and below the home folder it names only what is on
// agentls's own PATH, in a toolchain root or in [sandbox] read.
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
	g := newGrants(s.SandboxRead)
	untrusted := s.Origin != config.User
	var exec, write []string
	if s.WorkspaceRoot != "" {
		exec = g.add(exec, s.WorkspaceRoot, false)
	}
	// A cwd outside the workspace gets no grant of its own: the server
	// starts there but cannot read it (a user server's cwd is the folder
	// of the user's config, which may hold other servers' tokens).
	for _, dir := range programDirs(program) {
		exec = g.add(exec, dir, untrusted)
	}
	declared, own := pathDirs(s)
	for _, dir := range declared {
		exec = g.add(exec, dir, untrusted)
	}
	for _, dir := range own {
		exec = g.add(exec, dir, false)
	}
	for _, dir := range g.toolchains {
		exec = g.add(exec, dir, false)
	}
	for _, dir := range g.named {
		exec = g.add(exec, dir, false)
	}
	if c.StateDir != "" {
		// Its own folder is also runnable: npx and pip install the server
		// there (HOME) and run it; what it runs inherits the confinement.
		write = appendNew(write, c.StateDir)
		exec = appendNew(exec, c.StateDir)
	}
	if c.Mode == config.SandboxWorkspaceWrite && s.WorkspaceRoot != "" {
		write = g.add(write, s.WorkspaceRoot, false)
	}
	c.Policy = sandbox.Policy{Exec: exec, Write: write, Network: s.Network}.WithSystem()
	return c
}

// CommandExec are the folders a command autopilot runs confined may read
// and run from besides the workspace and the system's trees: its
// program's folder (program is where its name resolves on PATH, before
// links), the folders on agentls's PATH, the toolchain roots and the
// user's [sandbox] read (named), by the rules a repository's server gets
// (the model wrote the command: its program's folder below the home
// folder counts only where the user's own setup names it).
func CommandExec(program string, named []string) []string {
	g := newGrants(named)
	var exec []string
	for _, dir := range programDirs(program) {
		exec = g.add(exec, dir, true)
	}
	for _, dirs := range [][]string{filepath.SplitList(g.path), g.toolchains, g.named} {
		for _, dir := range dirs {
			exec = g.add(exec, dir, false)
		}
	}
	return exec
}

// grants decides which folders a confined program is given.
type grants struct {
	home       string
	path       string   // agentls's own PATH
	secrets    []string // SecretDirs
	toolchains []string // ToolchainDirs
	named      []string // the user config's [sandbox] read, resolved
}

func newGrants(named []string) grants {
	g := grants{path: os.Getenv("PATH"), secrets: config.SecretDirs(), toolchains: ToolchainDirs()}
	g.home, _ = os.UserHomeDir()
	if g.home != "" {
		g.home = filepath.Clean(g.home)
		if r, err := filepath.EvalSymlinks(g.home); err == nil {
			g.home = r
		}
	}
	for _, d := range named {
		if r, err := filepath.EvalSymlinks(d); err == nil && safeGrant(r, g.home, g.secrets) == "" {
			g.named = appendNew(g.named, r)
		}
	}
	return g
}

// add appends p (absolute; as its links resolve) to list unless the
// system's trees hold it already or it may not be granted: it opens the
// home folder or a secret one (safeGrant), or it comes from a repository
// or an editor (untrusted) and lies below the home folder outside
// agentls's own PATH, the toolchain roots and the folders the user named
// (a PATH = "$HOME/Documents" written by a repository opens nothing).
func (g grants) add(list []string, p string, untrusted bool) []string {
	if p == "" || !filepath.IsAbs(p) {
		return list
	}
	p = filepath.Clean(p)
	real := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		real = r
	}
	if safeGrant(p, g.home, g.secrets) != "" || safeGrant(real, g.home, g.secrets) != "" {
		return list
	}
	for _, sys := range sandbox.SystemExec() {
		if within(sys, real) {
			return list // granted with the system's trees already
		}
	}
	if untrusted && underHome(real, g.home) && !g.userChose(p, real) {
		return list
	}
	return appendNew(list, real)
}

// userChose reports whether the user's own setup names dir (as named, or
// real): a folder on agentls's PATH, in a toolchain root or in [sandbox]
// read.
func (g grants) userChose(dir, real string) bool {
	if onPath(dir, g.path) || onPath(real, g.path) {
		return true
	}
	for _, list := range [][]string{g.toolchains, g.named} {
		for _, root := range list {
			if within(root, real) {
				return true
			}
		}
	}
	return false
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
	return dirs
}

// pathDirs are the absolute folders on the PATH the server gets, so a
// program found there (node for an `#!/usr/bin/env node` script) can run:
// declared is the entry's own PATH (when it sets one without ${VAR}),
// own agentls's PATH (used otherwise).
func pathDirs(s config.Server) (declared, own []string) {
	path, ok := s.Env["PATH"]
	list := &declared
	if !ok || strings.Contains(path, "$") {
		path, list = os.Getenv("PATH"), &own
	}
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) {
			*list = append(*list, filepath.Clean(d))
		}
	}
	return declared, own
}

// resolveProgram finds the command of s the way the spawner will, on the
// declared PATH or agentls's; "" when it is not found.
func resolveProgram(s config.Server) string {
	if p := programPath(s.Command, s.Cwd); p != "" {
		return p
	}
	declared, own := pathDirs(s)
	for _, dir := range append(declared, own...) {
		p := filepath.Join(dir, s.Command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
