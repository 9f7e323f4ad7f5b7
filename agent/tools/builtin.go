package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// builtin is one agentls built-in tool: its definition for the model and the
// function that runs it. Results are plain text for the model.
type builtin struct {
	def  model.ToolDef
	kind wire.ToolKind
	run  func(ctx context.Context, env *Env, call Call, in json.RawMessage) (string, error)
	// timeout bounds one call; run_command brings its own.
	timeout time.Duration
	// gated tools may ask before they act, so their call starts pending.
	gated bool
	// readOnly tools change nothing: they run beside other calls unless
	// they read a path that holds secrets, which asks (readsPath).
	readOnly  bool
	readsPath bool
}

func (b *builtin) Def() model.ToolDef { return b.def }

func (b *builtin) Plan(env *Env, in json.RawMessage) Plan {
	p := Plan{Title: builtinTitle(b.def.Name, in), Kind: b.kind, Timeout: b.timeout, MayAsk: b.gated}
	if env.Workspace != nil {
		p.Locations = callLocations(env.Workspace.Folders(), in)
	}
	if b.readsPath {
		p.MayAsk = readMayAsk(env, in)
	}
	p.Parallel = b.readOnly && !p.MayAsk
	return p
}

func (b *builtin) Run(ctx context.Context, env *Env, call Call, in json.RawMessage) (Result, error) {
	text, err := b.run(ctx, env, call, in)
	return Result{Text: text}, err
}

// builtins are agentls's built-in tools, sorted by name (the order the
// model is offered them in, so the request prefix stays byte-identical).
var builtins = sortedByName([]*builtin{
	readFileTool, listDirectoryTool, findFilesTool, searchTextTool,
	writeFileTool, editFileTool,
	runCommandTool,
	listResourcesTool, readResourceTool,
	searchToolsTool,
})

func sortedByName(bs []*builtin) []*builtin {
	slices.SortFunc(bs, func(a, b *builtin) int { return strings.Compare(a.def.Name, b.def.Name) })
	return bs
}

// Builtins are the built-in tools, sorted by name.
func Builtins() []Tool {
	out := make([]Tool, len(builtins))
	for i, b := range builtins {
		out[i] = b
	}
	return out
}

// BuiltinNames are the names of the built-in tools, sorted. The MCP
// registry must reserve them (mcp.Options.Reserved) so no server's tool can
// take one.
func BuiltinNames() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.def.Name
	}
	return names
}

// IsBuiltin reports whether name is a built-in tool's.
func IsBuiltin(name string) bool {
	_, ok := Builtin(name)
	return ok
}

// builtinTitle is a one-line title for a built-in call: its name and the
// argument that says what it touches.
func builtinTitle(name string, in json.RawMessage) string {
	var a map[string]any
	json.Unmarshal(in, &a)
	for _, k := range []string{"command", "path", "pattern", "uri", "server"} {
		if v, ok := a[k].(string); ok && v != "" {
			return name + " " + FirstLine(trust.Redact(v), 80)
		}
	}
	return name
}

// callLocations are the files a built-in call names in its path argument,
// absolute (relative paths are taken from the first folder, as confine does).
func callLocations(folders []string, in json.RawMessage) []string {
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

// FirstLine is s's first non-empty line, trimmed and cut to max runes ("…"
// marks a cut). Its work is bounded by where that line ends and by max,
// never by len(s): a 50 MB prompt on one line costs no more than a short one.
func FirstLine(s string, max int) string {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		// Only the first max runes (plus the spaces before them) can show.
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		if line == "" {
			continue
		}
		n, cut := 0, len(line)
		for i := range line {
			if n == max {
				cut = i
				break
			}
			n++
		}
		if cut < len(line) && strings.TrimSpace(line[cut:]) != "" {
			kept := []rune(line[:cut]) // max runes
			return string(kept[:max-1]) + "…"
		}
		return strings.TrimRightFunc(line[:cut], unicode.IsSpace)
	}
	return ""
}

// Builtin is the built-in tool named name.
func Builtin(name string) (Tool, bool) {
	i, ok := slices.BinarySearchFunc(builtins, name, func(b *builtin, n string) int { return strings.Compare(b.def.Name, n) })
	if !ok {
		return nil, false
	}
	return builtins[i], true
}
