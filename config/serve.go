package config

// Serve is the [serve] table (user tier only): what an `agentls` editor
// session serves besides LSP.
type Serve struct {
	// MCP: the session listens on 127.0.0.1 as an MCP server of this
	// editor for an outside agent (docs/protocol.md section 9) and
	// publishes where, for `agentls mcp serve` to find. Off unless set:
	// a listening socket is the user's choice alone.
	MCP bool
}

var serveKeys = []string{"mcp"}

func (l *loader) serve(f *tomlFile, t map[string]any) {
	for _, k := range sortedKeys(t) {
		v, path := t[k], []string{"serve", k}
		if k != "mcp" {
			l.diag(f, SeverityWarning, path, unknownKey(serveKeys))
			continue
		}
		b, err := asBool(v)
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; the editor session is not served")
			continue
		}
		l.cfg.Serve.MCP = b
	}
}
