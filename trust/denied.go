package trust

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
)

// The kernel does not tell agentls which path it refused a confined
// program (Landlock's audit log needs privileges); the program usually
// does, on stderr. DeniedHint reads that text, which the program wrote
// and so is only a clue: a path it names is reported only when the
// policy does not grant it, and the advice never opens a secret folder.

// deniedLine is a line in which a program reports a refused access.
var deniedLine = regexp.MustCompile(`(?i)permission denied|eacces|operation not permitted|eperm`)

// absPath is an absolute path as programs print it (printable characters
// only: what is quoted back is never a terminal escape).
var absPath = regexp.MustCompile(`/[A-Za-z0-9._+@%=~,/-]+`)

// offline are the ways programs say they could not reach the network.
var offline = regexp.MustCompile(`(?i)eai_again|enotfound|getaddrinfo|temporary failure in name resolution|network is unreachable|enetunreach|name or service not known|could not resolve host|failed to resolve`)

// DeniedHint says, from the stderr of a confined server that failed,
// which path the sandbox refused and how to allow it, or that it has no
// network and how to give it some; "" when stderr shows neither or the
// server is not confined.
func (c ServerConfinement) DeniedHint(s config.Server, stderr string) string {
	if !c.Confined {
		return ""
	}
	var hints []string
	if p := RefusedPath(c.Policy, stderr); p != "" {
		hints = append(hints, c.pathHint(s, p))
	}
	if !c.Policy.Network {
		for _, line := range strings.Split(stderr, "\n") {
			if offline.MatchString(line) {
				hints = append(hints, networkHint(s))
				break
			}
		}
	}
	return strings.Join(hints, "; ")
}

// RefusedPath is the last path a confined program's output names on a
// line reporting a refused access (permission denied, EACCES, EPERM) that
// policy does not grant; "" for none. It is the program's word, not the
// kernel's: a clue to show, never a reason to grant anything.
func RefusedPath(policy sandbox.Policy, output string) string {
	found := ""
	for _, line := range strings.Split(output, "\n") {
		if !deniedLine.MatchString(line) {
			continue
		}
		for _, p := range absPath.FindAllString(line, -1) {
			p = strings.TrimRight(filepath.Clean(p), ".,")
			if !policyGrants(policy, p) {
				found = p
			}
		}
	}
	return found
}

// policyGrants reports whether policy lets the program reach p (as named or as
// its links resolve).
func policyGrants(policy sandbox.Policy, p string) bool {
	forms := []string{p}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		forms = append(forms, r)
	}
	for _, f := range forms {
		for _, list := range [][]string{policy.Read, policy.Exec, policy.Write} {
			for _, g := range list {
				if within(g, f) {
					return true
				}
			}
		}
	}
	return false
}

// pathHint says how to allow p, or that it is never allowed.
func (c ServerConfinement) pathHint(s config.Server, p string) string {
	home, _ := os.UserHomeDir()
	if why := safeGrant(p, home, config.SecretDirs()); why != "" && p != "/" {
		return "the sandbox refused " + p + ", which no confined program is given (" + why + "); only running it unconfined would: " + unconfinedHow(s)
	}
	dir := p
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		dir = filepath.Dir(p)
	}
	return "the sandbox refused " + p + " (outside what it may read, run or write); to let it read and run " + dir +
		", add \"" + dir + "\" to [sandbox] read in your user config (see docs/config.md), or run it unconfined: " + unconfinedHow(s)
}

// unconfinedHow says how s would run unconfined.
func unconfinedHow(s config.Server) string {
	if s.Origin == config.User {
		return "set sandbox = \"none\" in its entry"
	}
	if OffersChoices(s) || s.Sandbox == config.SandboxNone {
		return "choose \"allow unconfined\" on its launch card (revoke its approval first: agentls mcp revoke " + s.Name + ")"
	}
	return "its entry would need sandbox = \"none\""
}

// networkHint says how s would get the network.
func networkHint(s config.Server) string {
	switch {
	case s.Origin == config.User:
		return "it has no network (network: none) and its stderr says it tried to reach one: set network = true in its entry"
	case OffersChoices(s) || s.Network:
		return "it has no network (network: none) and its stderr says it tried to reach one (npx -y and uvx fetch on their first start): choose \"allow with network\" on its launch card (revoke its approval first: agentls mcp revoke " + s.Name + ")"
	}
	return "it has no network (network: none) and its stderr says it tried to reach one: its entry would need network = true"
}
