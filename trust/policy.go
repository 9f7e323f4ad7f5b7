package trust

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentls/agentls/config"
)

// Policy decides tool calls from the config's rules and the store.
//
// Rules of the user tier pick one decision: the most specific matching
// pattern wins (an exact name, then the glob with the most literal
// characters, "*" last), and at equal specificity deny beats ask beats allow.
// No matching rule means ask. Workspace rules are repo-authored and may only
// tighten: the result is the stricter of the user-tier decision and every
// matching workspace rule, so a workspace can never loosen a user "deny" or
// "ask" by being more specific, and its "allow" is ignored.
//
// Server annotations are untrusted claims: destructiveHint explicitly true
// turns any allow (a rule or "always allow") into ask; readOnlyHint grants
// nothing. destructiveHint absent does not force a prompt: most servers do not
// annotate, and the user's allow-list must stay usable.
//
// Autopilot never changes an MCP decision (G3): it is honored only by
// DecideCommand and DecideWrite, for built-in tools.
type Policy struct {
	Rules     []config.PolicyRule
	Store     *Store // may be nil: nothing always-allowed
	Autopilot bool
}

// strictness orders actions; a higher value is stricter. An unknown action
// counts as ask: a typo never allows and never silently denies.
func strictness(a Action) int {
	switch a {
	case Allow:
		return 0
	case Deny:
		return 2
	}
	return 1
}

func normAction(s string) Action {
	switch a := Action(strings.ToLower(strings.TrimSpace(s))); a {
	case Allow, Ask, Deny:
		return a
	}
	return Ask
}

// specificity ranks a pattern: exact names above every glob, then globs by
// how many characters are not '*' (so "github__pull_*" beats "github__*",
// which beats "*"). -1: not a valid pattern.
func specificity(pattern string) int {
	if pattern == "" {
		return -1
	}
	if !strings.ContainsAny(pattern, `*?[\`) {
		return 1 << 30
	}
	return len(pattern) - strings.Count(pattern, "*")
}

// globMatch matches a tool name against a pattern with path.Match's syntax
// (* ? [a-z] and \ escapes), the syntax config validates. Tool names never
// contain '/', so '*' matches any run of characters. A malformed pattern
// matches nothing (config drops such rules with a diagnostic).
func globMatch(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// namesServer reports whether an allow pattern may apply to a tool of server.
// A pattern whose literal start runs past the server's name must continue
// with exactly server + "__": otherwise "github__*" would allow the tools of
// a repo's server named "github_" ("github___x"), "github__evil" or
// "git.hub" (sanitized to "git_hub"), since the glob matches across the
// separator. A wildcard that starts within the name, before any "__"
// ("*", "git*"), is a deliberate pattern over server names and applies. An unknown server ("")
// is not checked.
func namesServer(pattern, server string) bool {
	if server == "" {
		return true
	}
	lit := pattern
	if i := strings.IndexAny(pattern, `*?[\`); i >= 0 {
		lit = pattern[:i]
	}
	return strings.HasPrefix(lit, server+"__") || !strings.Contains(lit, "__") && len(lit) <= len(server)
}

// ruleServer is the server a pattern names: its text before the first "__".
func ruleServer(pattern string) string {
	s, _, _ := strings.Cut(pattern, "__")
	return s
}

// ClassifyCall decides one MCP tool call: allow, ask or deny, with a reason a
// person can read. It is the only decision code for MCP calls: the agent uses
// it to decide and the server list uses it to fill the policy column.
// A built-in tool is not decided here: it gets Ask, and the agent decides it
// with DecideCommand and DecideWrite.
func (p *Policy) ClassifyCall(t ToolInfo) Decision {
	if t.Builtin {
		return Decision{Action: Ask, Reason: t.Name + " is a built-in tool: [mcp.policy] does not apply; the command classifier and autopilot decide it"}
	}
	var rules []config.PolicyRule
	if p != nil {
		rules = p.Rules
	}
	d := p.userDecision(t, rules)

	// Workspace rules only tighten.
	for _, r := range rules {
		if r.Origin == config.User || !globMatch(r.Pattern, t.Name) {
			continue
		}
		a := normAction(r.Action)
		if a == Allow {
			continue // a repo can never allow a tool
		}
		if strictness(a) > strictness(d.Action) {
			d = Decision{Action: a, Reason: verb(a) + " the workspace's " + ruleText(r) + " (workspace rules may only tighten)"}
		}
	}

	// An annotation may tighten, never loosen: a hostile server gains nothing by lying.
	if d.Action == Allow && t.DestructiveHint != nil && *t.DestructiveHint {
		d = Decision{Action: Ask, Reason: "the server marks " + t.Name + " destructive (destructiveHint), which always asks, even though it would be " + d.Reason}
	}
	// readOnlyHint sets nothing: plan mode runs no MCP tool, whatever its
	// server claims (a server's claim never loosens anything).
	return d
}

// userDecision is the user tier's decision, with "always allow" from the store.
func (p *Policy) userDecision(t ToolInfo, rules []config.PolicyRule) Decision {
	var best, skipped *config.PolicyRule
	bestSpec := -1
	for i, r := range rules {
		if r.Origin != config.User || !globMatch(r.Pattern, t.Name) {
			continue
		}
		if normAction(r.Action) == Allow && !namesServer(r.Pattern, t.Server) {
			skipped = &rules[i]
			continue
		}
		s := specificity(r.Pattern)
		if s > bestSpec || (s == bestSpec && strictness(normAction(r.Action)) > strictness(normAction(best.Action))) {
			best, bestSpec = &rules[i], s
		}
	}
	d := Decision{Action: Ask, Reason: "no [mcp.policy] entry matches " + t.Name + ", so it asks (the default for every MCP tool)"}
	if skipped != nil {
		d.Reason = "asks: " + ruleText(*skipped) + " names the server " + strconv.Quote(ruleServer(skipped.Pattern)) +
			", not this tool's server " + strconv.Quote(t.Server) + ", so it does not allow " + t.Name
	}
	if best != nil {
		a := normAction(best.Action)
		d = Decision{Action: a, Reason: verb(a) + " " + ruleText(*best)}
		if a != Action(strings.ToLower(strings.TrimSpace(best.Action))) {
			d.Reason = "asks: " + ruleText(*best) + " has the unknown action " + strconv.Quote(best.Action) + " (expected allow, ask or deny)"
		}
	}
	if d.Action == Deny || p == nil || p.Store == nil {
		return d // a deny rule beats "always allow"
	}
	h, ok, err := p.Store.alwaysAllowedHash(t.Name)
	switch {
	case err != nil:
		return Decision{Action: d.Action, Reason: d.Reason + fmt.Sprintf(" (the trust store could not be read, so no \"always allow\" applies: %v)", err)}
	case !ok:
		return d
	case t.DefinitionHash == "" || h != t.DefinitionHash:
		// The rug pull: allowed once, then the server rewrote the tool.
		if d.Action == Allow {
			return d
		}
		return Decision{Action: Ask, Reason: "asks: " + t.Name + " was always-allowed, but the server has changed its definition (description or input schema) since"}
	}
	if d.Action == Allow {
		return d
	}
	return Decision{Action: Allow, Reason: "allowed: you chose \"always allow\" for " + t.Name + " and its definition has not changed since"}
}

// verb starts a reason: "allowed by", "denied by", "asks because of".
func verb(a Action) string {
	switch a {
	case Allow:
		return "allowed by"
	case Deny:
		return "denied by"
	}
	return "asks because of"
}

// ruleText names a rule the way the user wrote it and where. Reasons are
// built on every call decision, so by concatenation: strconv.Quote is what
// %q prints for a string.
func ruleText(r config.PolicyRule) string {
	return "[mcp.policy] " + strconv.Quote(r.Pattern) + " = " + strconv.Quote(r.Action) + " in " + homeRel(r.Source)
}

// homeRel shortens the home directory to ~ in a source location. The home
// directory is looked up each time (an environment read): it is not cached
// for the process, so a changed HOME is honored as before.
func homeRel(src config.Source) string {
	if src.File == "" {
		return src.String() // nothing to shorten
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, src.File); err == nil && !strings.HasPrefix(rel, "..") {
			src.File = filepath.Join("~", rel)
		}
	}
	return src.String()
}
