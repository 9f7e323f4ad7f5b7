package trust

// frozenRead is one read of trust.json, kept for a Policy snapshot.
type frozenRead struct {
	file *storeFile
	err  error
}

// Snapshot is p with the trust store read once, for deciding many tools at
// one instant (the server list) without reading trust.json once per tool.
// Decisions are those ClassifyCall gives on p at the moment of the read,
// errors included. Use it for that instant only: a later revocation is seen
// by the next read, never by an old snapshot.
func (p *Policy) Snapshot() *Policy {
	if p == nil || p.Store == nil {
		return p
	}
	f, err := p.Store.read()
	q := *p
	q.Store = &Store{path: p.Store.path, frozen: &frozenRead{file: f, err: err}}
	return &q
}
