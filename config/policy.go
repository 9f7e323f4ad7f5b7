package config

import (
	"errors"
	"fmt"
	"path"
)

// policy reads [mcp.policy]: "pattern" = "allow" | "ask" | "deny". A bad
// entry is dropped with a diagnostic; a workspace "allow" is dropped with a
// warning.
func (l *loader) policy(f *tomlFile, v any) {
	t, err := asTable(v, `a table of "pattern" = "allow" | "ask" | "deny"`)
	if err != nil {
		l.diag(f, SeverityError, []string{"mcp", "policy"}, err.Error()+"; no policy rule from this file was loaded")
		return
	}
	for _, pattern := range sortedKeys(t) {
		p := []string{"mcp", "policy", pattern}
		action, err := asString(t[pattern])
		switch {
		case err != nil:
			err = fmt.Errorf(`%v: expected "allow", "ask" or "deny"`, err)
		case action != "allow" && action != "ask" && action != "deny":
			err = fmt.Errorf(`invalid action %q: expected "allow", "ask" or "deny"`, action)
		case pattern == "":
			err = errors.New(`empty pattern: expected a tool name like "github__get_issue" or a glob like "github__*"`)
		default:
			if _, merr := path.Match(pattern, ""); merr != nil {
				err = fmt.Errorf(`invalid glob %q: expected a tool name or a pattern using * and ?`, pattern)
			}
		}
		if err != nil {
			l.diag(f, SeverityError, p, err.Error()+"; the rule was dropped")
			continue
		}
		if f.origin == Workspace && action == "allow" {
			// Stops a cloned repo from approving its own tools' calls.
			l.diag(f, SeverityWarning, p, `ignored: a workspace config can only tighten policy ("ask" or "deny"), never allow a tool; put "allow" rules in your user config`)
			continue
		}
		l.cfg.MCP.Policy = append(l.cfg.MCP.Policy, PolicyRule{Pattern: pattern, Action: action, Origin: f.origin, Source: f.source(p)})
	}
}
