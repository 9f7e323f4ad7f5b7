package jsonrpc

// Protocol is a protocol agentls speaks over JSON-RPC 2.0: its framing,
// the notification that cancels a request, and the ids it allows.
type Protocol int

const (
	// LSP frames each message with Content-Length headers, cancels with
	// $/cancelRequest {"id"}, and has 32-bit integer ids.
	LSP Protocol = iota
	// ACP puts each message on its own line, cancels with
	// $/cancel_request {"requestId"}, and has 64-bit integer ids.
	ACP
)

// String is the protocol's name.
func (p Protocol) String() string {
	if p == ACP {
		return "ACP"
	}
	return "LSP"
}
