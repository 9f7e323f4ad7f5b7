package mcp

// listingGen counts the changes to what Tools returns. Tools' result is a
// function of each server's tool list, the names assigned to them, and
// which servers are shown at all (Connected, or failed but restartable).
// Tool lists and names change only in renameLocked; a server's state
// changes with a notifyLocked, or in Restart and Close: all of these bump
// gen. The shown set also depends on the restart count, which a call
// resets without a notify; so as a backstop the shown set is re-derived
// whenever the generation is read, and a difference bumps gen too.
type listingGen struct {
	gen   uint64
	shown []bool // by index in Registry.order, as of the last read of gen
}

// ToolsGeneration is a counter of the changes to the tool listing: equal
// generations guarantee an identical Tools() result. A different value
// only means "maybe changed". It neither copies nor sorts, so a caller
// polling every turn can skip Tools (and comparing its result) while the
// generation stays the same.
func (r *Registry) ToolsGeneration() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	moved := false
	for i, name := range r.order {
		srv := r.servers[name]
		shown := srv.state == Connected || r.restartableLocked(srv)
		if shown != r.listing.shown[i] {
			r.listing.shown[i], moved = shown, true
		}
	}
	if moved {
		r.listing.gen++
	}
	return r.listing.gen
}
