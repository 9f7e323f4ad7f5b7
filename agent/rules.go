package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// keep saves what the "always" option the user chose of card keeps: a
// workspace rule (allow_always, reject_always) or an MCP tool's
// always-allow bound to its definition. The gate that offered the card is
// the one place this happens; an option the card did not offer keeps
// nothing.
func (c *Core) keep(opt string, card wire.Approval, k tools.Keep) {
	if opt == "" || !slices.ContainsFunc(card.Options, func(o wire.ApprovalOption) bool { return o.OptionID == opt }) {
		return
	}
	var rule *trust.Rule
	switch {
	case opt == string(wire.OptionAllowAlways) && k.Allow != nil:
		rule = k.Allow
	case opt == string(wire.OptionRejectAlways) && k.Deny != nil:
		rule = k.Deny
	case opt == string(wire.OptionAllowAlways) && k.Tool != "":
		if c.store == nil {
			c.logf("agent: cannot remember \"always allow %s\": no trust store", k.Tool)
		} else if err := c.store.AllowAlways(k.Tool, k.DefinitionHash); err != nil {
			c.logf("agent: remember \"always allow %s\": %v", k.Tool, err)
		}
		return
	default:
		return
	}
	if c.store == nil {
		c.logf("agent: cannot remember the rule %q: no trust store", rule.ID())
	} else if err := c.store.AddRule(k.Root, *rule); err != nil {
		c.logf("agent: remember the rule %q: %v", rule.ID(), err)
	}
}

// Rules lists the saved "always allow" rules of the workspace folders
// (every workspace's in the store when folders is empty), for
// agent/rules, `agentls rules list` and ACP's /rules.
func (c *Core) Rules(folders []string) ([]wire.Rule, error) {
	if c.store == nil {
		return nil, errors.New("agentls: no trust store, so no rules: set XDG_STATE_HOME or HOME")
	}
	return rulesOf(c.store, folders)
}

// RevokeRule forgets the rule with this id in the workspace folders (in
// workspace only, when it is not ""), and returns what it forgot. No rule
// of that id is an error saying which exist.
func (c *Core) RevokeRule(folders []string, id, workspace string) ([]wire.Rule, error) {
	if c.store == nil {
		return nil, errors.New("agentls: no trust store, so no rules: set XDG_STATE_HOME or HOME")
	}
	return revokeRuleOf(c.store, folders, id, workspace)
}

// StoredRules lists the rules of the trust store in agentls's state folder
// for folders (every workspace's when folders is empty), for `agentls
// rules list`, which runs without a Core.
func StoredRules(folders []string) ([]wire.Rule, error) {
	s, err := defaultStore()
	if err != nil {
		return nil, err
	}
	return rulesOf(s, folders)
}

// RevokeStoredRule is RevokeRule on the trust store in agentls's state
// folder, for `agentls rules revoke`.
func RevokeStoredRule(folders []string, id string) ([]wire.Rule, error) {
	s, err := defaultStore()
	if err != nil {
		return nil, err
	}
	return revokeRuleOf(s, folders, id, "")
}

func defaultStore() (*trust.Store, error) {
	path := trust.DefaultStorePath()
	if path == "" {
		return nil, errors.New("no state directory for the trust store: set XDG_STATE_HOME or HOME")
	}
	return trust.OpenStore(path), nil
}

// rulesOf lists the rules s holds for folders (all of them when folders is
// empty), sorted by workspace and id.
func rulesOf(s *trust.Store, folders []string) ([]wire.Rule, error) {
	byRoot := map[string][]trust.Rule{}
	if len(folders) == 0 {
		all, err := s.AllRules()
		if err != nil {
			return nil, err
		}
		byRoot = all
	}
	for _, f := range folders {
		rs, err := s.Rules(f)
		if err != nil {
			return nil, err
		}
		byRoot[filepath.Clean(f)] = rs
	}
	out := []wire.Rule{}
	roots := make([]string, 0, len(byRoot))
	for r := range byRoot {
		roots = append(roots, r)
	}
	slices.Sort(roots)
	for _, root := range roots {
		for _, r := range byRoot[root] {
			out = append(out, wire.Rule{ID: r.ID(), Kind: string(r.Kind), Argv: r.Argv, Prefix: r.Prefix, Folder: r.Folder,
				Workspace: root, Description: r.Describe(), AddedAt: r.AddedAt,
				Deny: r.Deny, Shell: r.Shell, Path: r.Path})
		}
	}
	return out, nil
}

// revokeRuleOf is RevokeRule on s.
func revokeRuleOf(s *trust.Store, folders []string, id, workspace string) ([]wire.Rule, error) {
	if id == "" {
		return nil, errors.New("no rule id given: agent/rules (or agentls rules list) lists them, e.g. \"command: go test ./*\"")
	}
	rules, err := rulesOf(s, folders)
	if err != nil {
		return nil, err
	}
	var revoked []wire.Rule
	for _, r := range rules {
		if r.ID != id || (workspace != "" && filepath.Clean(workspace) != r.Workspace) {
			continue
		}
		if _, err := s.RevokeRule(r.Workspace, r.ID); err != nil {
			return revoked, err
		}
		revoked = append(revoked, r)
	}
	if len(revoked) == 0 {
		ids := make([]string, 0, len(rules))
		for _, r := range rules {
			ids = append(ids, fmt.Sprintf("%q (%s)", r.ID, r.Workspace))
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("no rule %q: there are no saved rules here", id)
		}
		return nil, fmt.Errorf("no rule %q: the saved rules are %s", id, strings.Join(ids, ", "))
	}
	return revoked, nil
}
