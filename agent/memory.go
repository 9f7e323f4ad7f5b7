package agent

import (
	"context"
	"runtime/debug"
	"slices"
	"time"
)

// What a Core holds for a session lasts only while a task needs it: the
// session's lock is dropped when its last holder and waiter are done, and
// the index's cache of session entries is bounded (session/index.go). The
// memory a burst of tasks needed (thousands at once: their requests, their
// streams) is garbage once they end, but the Go runtime gives the pages
// back to the system only slowly, so the resident set stayed at the
// burst's peak; once no task has run for releaseAfter, the core returns
// them (debug.FreeOSMemory), at most once per burst.

// releaseAfter is how long a Core is idle before it gives memory back.
const releaseAfter = time.Second

// sessionLock takes a session for one task, so two tasks never interleave
// one history. It gives up when ctx ends.
// Another agentls in a turn of the same session is waited for too (its
// lock file, session/lock.go).
func (c *Core) sessionLock(ctx context.Context, id string) (unlock func(), err error) {
	h := c.holdSession(id)
	select {
	case h.ch <- struct{}{}:
	case <-ctx.Done():
		c.dropSession(id, h)
		return nil, ctx.Err()
	}
	across, err := c.sessions.LockAcross(ctx, id, func() {
		c.logf("session %s: another agentls is in a turn of it: this turn waits for it to end", id)
	})
	if err != nil {
		<-h.ch
		c.dropSession(id, h)
		return nil, err
	}
	return func() { across(); <-h.ch; c.dropSession(id, h) }, nil
}

// trySessionLock takes a session only if no task, of this agentls or
// another, holds it.
func (c *Core) trySessionLock(id string) (unlock func(), ok bool) {
	h := c.holdSession(id)
	select {
	case h.ch <- struct{}{}:
	default:
		c.dropSession(id, h)
		return nil, false
	}
	across, err := c.sessions.TryLockAcross(id)
	if err != nil {
		<-h.ch
		c.dropSession(id, h)
		return nil, false
	}
	return func() { across(); <-h.ch; c.dropSession(id, h) }, true
}

func (c *Core) holdSession(id string) *sessionHold {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.sessLocks[id]
	if !ok {
		h = &sessionHold{ch: make(chan struct{}, 1)}
		c.sessLocks[id] = h
	}
	h.users++
	return h
}

// recentSessions is how many sessions no longer in use keep their index
// entry cached, for a next turn soon.
const recentSessions = 64

// dropSession forgets the session's lock once nobody holds or waits for
// it; its cached index entry goes once recentSessions others were used
// after it.
func (c *Core) dropSession(id string, h *sessionHold) {
	c.mu.Lock()
	var forget []string
	if h.users--; h.users == 0 && c.sessLocks[id] == h {
		delete(c.sessLocks, id)
		c.recent = append(c.recent, id)
		for len(c.recent) > recentSessions {
			old := c.recent[0]
			c.recent = c.recent[1:]
			if _, inUse := c.sessLocks[old]; !inUse && !slices.Contains(c.recent, old) {
				forget = append(forget, old)
			}
		}
	}
	c.mu.Unlock()
	for _, old := range forget {
		c.sessions.Forget(old)
	}
}

// heldSessions is how many sessions the core holds anything for.
func (c *Core) heldSessions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sessLocks)
}

// busy stops a pending release: a task runs. c.mu is held.
func (c *Core) busy() {
	if c.release != nil {
		c.release.Stop()
		c.release = nil
	}
}

// idle arms the release when the last task has ended. c.mu is held.
func (c *Core) idle() {
	if len(c.tasks) > 0 || c.closed || c.release != nil {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(releaseAfter, func() {
		c.mu.Lock()
		if c.release != t || len(c.tasks) > 0 || c.closed {
			c.mu.Unlock()
			return
		}
		c.release = nil
		c.mu.Unlock()
		debug.FreeOSMemory()
	})
	c.release = t
}
