package agent

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// A session talks to the model of its profile ([model.profiles.NAME] of
// the user config; [model] is config.DefaultProfile), which a front may
// switch between turns (SetModel). Each profile's provider and context
// window are found once per Core, on first use. The history needs no
// conversion of its own: it is stored in the providers' common shape
// (model.Message), and each provider's encoder writes it in its wire,
// sending what an endpoint attached to an answer (signed thinking,
// reasoning fields, thought signatures) back to that endpoint only
// (model.Block.Endpoint).

// profile is the model of the profile named name ("": the default);
// false when the config declares no such profile.
func (c *Core) profile(name string) (*profileModel, bool) {
	name = config.ProfileOrDefault(name)
	cfg, ok := c.cfg.Profile(name)
	if !ok {
		return nil, false
	}
	c.provMu.Lock()
	defer c.provMu.Unlock()
	if c.models == nil {
		c.models = map[string]*profileModel{}
	}
	pm := c.models[name]
	if pm == nil {
		pm = &profileModel{name: name, cfg: cfg}
		if config.IsDefaultProfile(name) {
			pm.provider = c.provider // Options.Provider: a test's, or nil
		}
		c.models[name] = pm
	}
	return pm, true
}

// sessionModel is the model a session's next turn talks to.
func (c *Core) sessionModel(sessionID string) *profileModel {
	pm, ok := c.profile(c.Profile(sessionID))
	if !ok {
		pm, _ = c.profile("")
	}
	return pm
}

// Profile is a session's model profile now; "" is the profile new
// sessions take.
func (c *Core) Profile(sessionID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sessionID == "" {
		return c.defaultProfile()
	}
	if p := c.control(sessionID).Profile; p != "" {
		return p
	}
	return c.defaultProfile()
}

// SetModel switches a session to the model profile name, or with
// sessionID "", every session not set since (new ones included). A
// running turn keeps its model; the next turn talks to the new one, with
// the history so far. A profile that does not resolve (its key unset, a
// bad table) is refused now rather than at the next turn. A session's
// profile is saved with it.
func (c *Core) SetModel(sessionID, name string) error {
	name = config.ProfileOrDefault(name)
	if _, ok := c.cfg.Profile(name); !ok {
		return fmt.Errorf("unknown model profile %q: expected one of %q (declared as [model.profiles.NAME] in the user config)", name, c.cfg.ProfileNames())
	}
	pm, _ := c.profile(name)
	if _, err := pm.resolve(); err != nil && pm.provider == nil {
		return fmt.Errorf("model profile %q cannot be used: %w", name, err)
	}
	return c.choose(sessionID, func() { c.profileName = name }, func(ctl *session.Control) { ctl.Profile = name })
}

// resolve is the profile's model as its table resolves it (no request).
func (pm *profileModel) resolve() (model.Resolved, error) {
	return model.Resolve(pm.cfg, os.Getenv)
}

// Provider is the profile's provider, built on first use.
func (pm *profileModel) Provider(stateDir string) (model.Provider, error) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.provider != nil {
		return pm.provider, nil
	}
	p, err := model.NewIn(pm.cfg, os.Getenv, stateDir)
	if err != nil {
		if !config.IsDefaultProfile(pm.name) {
			err = fmt.Errorf("model profile %q: %w", pm.name, err)
		}
		return nil, err
	}
	pm.provider = p
	return p, nil
}

// info names the profile's model as wire.ModelInfo does.
func (pm *profileModel) info() wire.ModelInfo {
	if r, err := pm.resolve(); err != nil {
		if pm.provider != nil {
			return wire.ModelInfo{Profile: pm.name, Provider: pm.provider.Name(), Name: pm.cfg.Name}
		}
		return wire.ModelInfo{Profile: pm.name, Error: err.Error()}
	} else {
		return wire.ModelInfo{Profile: pm.name, Provider: r.Provider, Name: r.Name}
	}
}

// ProfileNames are the profiles a session may switch to, "default" first.
func (c *Core) ProfileNames() []string { return c.cfg.ProfileNames() }

// Models are the profiles a session may switch to, each as it resolves.
func (c *Core) Models() []wire.ModelInfo {
	var out []wire.ModelInfo
	for _, name := range c.cfg.ProfileNames() {
		pm, _ := c.profile(name)
		out = append(out, pm.info())
	}
	return out
}

// ModelOf names the model a session's next turn talks to.
func (c *Core) ModelOf(sessionID string) wire.ModelInfo { return c.sessionModel(sessionID).info() }

// keyEnvs are the variables of every profile's key named in the config,
// which no command agentls runs may see.
func (c *Core) keyEnvs() []string {
	var out []string
	for _, name := range c.cfg.ProfileNames() {
		if m, _ := c.cfg.Profile(name); m.APIKeyEnv != "" {
			out = append(out, m.APIKeyEnv)
		}
	}
	return out
}
