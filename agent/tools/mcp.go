package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// mcpTool is a connected MCP server's tool as the model calls it.
type mcpTool struct {
	t   mcp.Tool
	def model.ToolDef
}

// FromMCP is the Tool that calls t through the registry. Its description
// is cut to descMax runes (G4: a description is third-party text the model
// reads on every turn) and starts with [Attribution].
func FromMCP(t mcp.Tool, descMax int) Tool {
	desc := Attribution(t) + " " + CapRunes(t.Description, descMax)
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return &mcpTool{t: t, def: model.ToolDef{Name: t.Name, Description: desc, Schema: schema}}
}

// Attribution is what an MCP tool's description starts with to say whose
// it is: the server's name as the user's config spells it, in brackets,
// "[github]". The system prompt tells the model what the brackets mean
// (systemIntro), once, instead of every description saying "MCP server".
// The name comes from the config, never from the server, and the text
// after it from the server: so that no server name can end the brackets
// early or pass for another name, a name of anything but letters, digits,
// '_', '-' and '.' is quoted as a Go string, escapes included
// ("[\"a] [b\"]"). The server's own spelling of the tool follows, quoted,
// only when the name the model calls differs from "server__tool" (it was
// sanitized, cut or hashed apart from another), so the model and the user
// can still tell which tool of the server it is.
func Attribution(t mcp.Tool) string {
	server := t.Server
	if !plainName(server) {
		server = strconv.Quote(server)
	}
	if t.Name == t.Server+"__"+t.ServerTool {
		return "[" + server + "]"
	}
	return "[" + server + " " + strconv.Quote(t.ServerTool) + "]"
}

// plainName reports whether s is non-empty and only letters, digits, '_',
// '-' and '.' (ASCII): nothing that could close or fake the brackets.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// MCPTool is the MCP tool behind a Tool FromMCP made; ok is false for a
// built-in.
func MCPTool(t Tool) (mcp.Tool, bool) {
	m, ok := t.(*mcpTool)
	if !ok {
		return mcp.Tool{}, false
	}
	return m.t, true
}

// ToolInfo is what the call policy knows of an MCP tool. The call gate and
// the server list both go through it.
func ToolInfo(t mcp.Tool) trust.ToolInfo {
	info := trust.ToolInfo{Name: t.Name, Server: t.Server, DefinitionHash: t.DefinitionHash}
	if t.Annotations != nil {
		info.DestructiveHint = t.Annotations.DestructiveHint
		info.ReadOnlyHint = t.Annotations.ReadOnlyHint
	}
	return info
}

func (m *mcpTool) Def() model.ToolDef { return m.def }

// The schema the model sees is the server's (so is InputSchema for a bad
// arguments error); the policy decides, the server's hints only tighten it.
func (m *mcpTool) Plan(env *Env, _ json.RawMessage) Plan {
	return Plan{Title: m.t.Server + " · " + trust.Visible(m.t.ServerTool), Server: m.t.Server, Kind: wire.KindOther,
		MayAsk: true, Parallel: env.policy().ClassifyCall(ToolInfo(m.t)).Action == trust.Allow}
}

func (m *mcpTool) Run(ctx context.Context, env *Env, call Call, in json.RawMessage) (Result, error) {
	t := m.t
	d := env.policy().ClassifyCall(ToolInfo(t))
	// The card shows the arguments the server will get, not the redacted
	// copy events carry.
	title, detail := mcpCallCard(t, in)
	options := []wire.ApprovalOption{AllowOnce, allowAlways(t.Name), RejectOnce}
	keep := Keep{Tool: t.Name, DefinitionHash: t.DefinitionHash}
	if destructive(t) {
		// A tool its own server calls destructive asks every time: an
		// "always" could not be kept anyway (ClassifyCall asks for it over
		// any allow), and stored it would cover the tool the day the
		// server drops the hint.
		options, keep = []wire.ApprovalOption{AllowOnce, RejectOnce}, Keep{}
	}
	_, err := call.Gate(ctx, d, wire.Approval{
		Kind: wire.ApprovalMCPCall, Title: title, Detail: detail, Server: t.Server, Tool: t.ServerTool, Arguments: in,
		Options: options,
	}, keep)
	if err != nil {
		return Result{}, err
	}
	// What the server sends during the call; the loop drops whatever
	// arrives after the call ended.
	lctx := mcp.WithListener(ctx, mcp.CallListener{
		Progress: func(p mcp.Progress) { call.Progress(p.String()) },
		Log:      func(l mcp.LogMessage) { call.ServerLog(l.String()) },
		Elicit:   call.Elicit,
	})
	res := env.Registry.Call(lctx, t.Name, in)
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	return Result{Text: res.Text, IsError: res.IsError, Images: modelImages(res.Images), Task: res.Task, Structured: res.Structured}, nil
}

// modelImages are an MCP result's images as a tool_result carries them to
// the model (and into the session file): base64, standard and padded, so
// the bytes of a request are the same every time it is built.
func modelImages(in []mcp.Image) []model.Image {
	if len(in) == 0 {
		return nil
	}
	out := make([]model.Image, len(in))
	for i, im := range in {
		out[i] = model.Image{MIMEType: im.MIMEType, Data: base64.StdEncoding.EncodeToString(im.Data), Width: im.Width, Height: im.Height}
	}
	return out
}

// destructive is the server's own claim that t is destructive.
func destructive(t mcp.Tool) bool {
	return t.Annotations != nil && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint
}

// mcpCallCard is the title and detail of an mcp_call approval: server ·
// tool, then the arguments as indented JSON.
func mcpCallCard(t mcp.Tool, args []byte) (title, detail string) {
	// The server picks ServerTool: escaped, it cannot fake or hide a line.
	name := t.Server + " · " + trust.Visible(t.ServerTool)
	return "Call " + name + "?", name + "\n" + trust.VisibleText(indentJSON(args))
}

func indentJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// CapRunes cuts a server-authored text to max runes, marking the cut.
func CapRunes(s string, max int) string {
	r := []rune(s)
	if max <= 0 || len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
