package agent

import (
	"encoding/json"
	"path/filepath"

	"github.com/agentls/agentls/wire"
)

// The kinds of tool calls (protocol's).
const (
	KindRead    = wire.KindRead
	KindEdit    = wire.KindEdit
	KindSearch  = wire.KindSearch
	KindExecute = wire.KindExecute
	KindFetch   = wire.KindFetch
	KindOther   = wire.KindOther
)

// builtinKinds are the kinds of the built-in tools; an MCP tool is KindOther
// (its server says nothing we could trust about what it does).
var builtinKinds = map[string]ToolKind{
	"read_file":          KindRead,
	"list_directory":     KindSearch,
	"find_files":         KindSearch,
	"search_text":        KindSearch,
	"write_file":         KindEdit,
	"edit_file":          KindEdit,
	"run_command":        KindExecute,
	"list_mcp_resources": KindFetch,
	"read_mcp_resource":  KindFetch,
	"search_tools":       KindSearch,
}

// toolKind is the kind of a call to the tool named name.
func toolKind(name string) ToolKind {
	if k, ok := builtinKinds[name]; ok {
		return k
	}
	return KindOther
}

// callLocations are the files a built-in call names in its path argument,
// absolute (relative paths are taken from the first folder, as confine does).
// An MCP call has none: its arguments mean what its server says.
func callLocations(folders []string, name string, in json.RawMessage) []string {
	if _, ok := builtinKinds[name]; !ok {
		return nil
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(in, &a) != nil || a.Path == "" {
		return nil
	}
	p := a.Path
	if !filepath.IsAbs(p) {
		if len(folders) == 0 {
			return nil
		}
		p = filepath.Join(folders[0], p)
	}
	return []string{filepath.Clean(p)}
}
