package agent

import (
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// joinLaunch decides, under one lock, how a TrustServer caller proceeds:
// join the card already on screen for key, start without asking because
// the store trusts this fingerprint, or lead a new card. The store is read
// under the same lock as the card list, so a caller arriving as a card
// ends sees either the card or the approval it recorded, never neither.
func (c *Core) joinLaunch(key launchKey, srv config.Server) (f *launchFlight, lead, trusted bool) {
	c.launchMu.Lock()
	defer c.launchMu.Unlock()
	if f := c.launches[key]; f != nil {
		f.waiters++
		return f, false, false
	}
	// Only an approval of this exact command line (under one of the
	// choices its card offers) skips the card; a store that cannot be read
	// asks again (a changed command never rides an old yes).
	if ls, _, err := c.store.ServerLaunch(srv); err == nil && ls == trust.Trusted {
		return nil, false, true
	}
	if c.launches == nil {
		c.launches = map[launchKey]*launchFlight{}
	}
	f = &launchFlight{done: make(chan struct{})}
	c.launches[key] = f
	return f, true, false
}

// endLaunch publishes a card's outcome to its joiners. The consent is
// already in the store, so later callers start without a card.
func (c *Core) endLaunch(key launchKey, f *launchFlight, st mcp.State, err error, retry bool) {
	c.launchMu.Lock()
	defer c.launchMu.Unlock()
	f.state, f.err, f.retry = st, err, retry
	f.waiters = 0
	delete(c.launches, key)
	close(f.done)
}

// leaveLaunch is a joiner giving up (its own ctx ended); the card stays.
func (c *Core) leaveLaunch(f *launchFlight) {
	c.launchMu.Lock()
	defer c.launchMu.Unlock()
	if f.waiters > 0 {
		f.waiters--
	}
}

// launchJoiners is how many callers wait on the card for server name.
func (c *Core) launchJoiners(name string) int {
	c.launchMu.Lock()
	defer c.launchMu.Unlock()
	n := 0
	for k, f := range c.launches {
		if k.name == name {
			n += f.waiters
		}
	}
	return n
}
