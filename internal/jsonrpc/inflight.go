package jsonrpc

import (
	"context"
	"sync"
)

// inflight maps request ids to the cancel funcs of their handlers. Ids
// should be unique among requests in flight, but a peer may reuse one:
// each request keeps its own entry, so the second one finishing does not
// take the first one's with it, and a cancel for the id reaches every
// request still running under it.
type inflight struct {
	mu   sync.Mutex
	next uint64
	m    map[string]map[uint64]context.CancelFunc
}

// add records a handler's cancel func and returns the token that removes it.
func (f *inflight) add(key string, cancel context.CancelFunc) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]map[uint64]context.CancelFunc{}
	}
	if f.m[key] == nil {
		f.m[key] = map[uint64]context.CancelFunc{}
	}
	f.next++
	f.m[key][f.next] = cancel
	return f.next
}

func (f *inflight) remove(key string, token uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m[key], token)
	if len(f.m[key]) == 0 {
		delete(f.m, key)
	}
}

// cancel cancels every request in flight under key and says how many.
func (f *inflight) cancel(key string) int {
	f.mu.Lock()
	var cancels []context.CancelFunc
	for _, c := range f.m[key] {
		cancels = append(cancels, c)
	}
	f.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	return len(cancels)
}
