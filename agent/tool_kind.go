package agent

import "github.com/agentls/agentls/wire"

// The kinds of tool calls (protocol's).
const (
	KindRead    = wire.KindRead
	KindEdit    = wire.KindEdit
	KindSearch  = wire.KindSearch
	KindExecute = wire.KindExecute
	KindFetch   = wire.KindFetch
	KindOther   = wire.KindOther
)
