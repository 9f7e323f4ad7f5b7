package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/wire"
)

// tool is one tool of the server: its definition, what the editor must
// offer for it to be listed, and what a call does.
type tool struct {
	def   *sdk.Tool
	needs func(Offers) bool
	// missing says what needs wants, for a call of the tool where it is
	// not listed.
	missing string
	// run answers one call; client is who asks, as the card names it.
	run func(ctx context.Context, c *conn, client string, in json.RawMessage) (string, bool)
}

func always(Offers) bool { return true }

// core is a tool that is the core's tool of the same name (or another
// name), with that tool's own description and schema: its gate is the
// gate of agentls's own agent.
func coreTool(name, coreName string, needs func(Offers) bool, title string, readOnly bool) tool {
	def, ok := agent.ExternalToolDef(coreName)
	if !ok {
		panic("mcpserve: the core has no outside tool " + coreName)
	}
	return tool{
		def: &sdk.Tool{Name: name, Title: title, Description: def.Description, InputSchema: def.Schema,
			Annotations: annotations(readOnly)},
		needs: needs,
		run: func(ctx context.Context, c *conn, client string, in json.RawMessage) (string, bool) {
			return c.call(ctx, client, coreName, in)
		},
	}
}

func annotations(readOnly bool) *sdk.ToolAnnotations {
	if readOnly {
		return &sdk.ToolAnnotations{ReadOnlyHint: true}
	}
	f := false
	return &sdk.ToolAnnotations{DestructiveHint: &f}
}

// tools are the server's tools the editor offers now, sorted by name.
func (s *Server) tools() []tool {
	offers := s.ed.Offers()
	var out []tool
	for _, t := range s.allTools() {
		if t.needs(offers) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b tool) int { return strings.Compare(a.def.Name, b.def.Name) })
	return out
}

// allTools are every tool of the server, offered here or not.
func (s *Server) allTools() []tool {
	const ask, docs = "someone to answer its card", "an editor's open documents"
	all := []tool{
		{def: &sdk.Tool{Name: "workspace_folders", Title: "Workspace folders", Description: "The editor's workspace folders, one absolute path a line.",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: always,
			run: func(context.Context, *conn, string, json.RawMessage) (string, bool) {
				return strings.Join(s.ed.Folders(), "\n"), false
			}},
		{def: &sdk.Tool{Name: "list_open_documents", Title: "Open documents", Description: "The documents open in the editor inside the workspace folders (JSON: path, languageId, version). read_document gives a document's unsaved text.",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: func(o Offers) bool { return o.Documents },
			run: func(context.Context, *conn, string, json.RawMessage) (string, bool) {
				return jsonText(s.openDocuments())
			}},
		coreTool("read_document", "read_document", always, "Read a document (unsaved text)", true),
		coreTool("read_file", "read_file", always, "Read a file with line numbers", true),
		coreTool("list_directory", "list_directory", always, "List a folder", true),
		coreTool("find_files", "find_files", always, "Find files by name", true),
		coreTool("search_text", "search_text", always, "Search text in files", true),
		{def: &sdk.Tool{Name: "get_selection", Title: "The editor's selection", Description: "The editor's latest selection (or cursor): the document, the range (0-based, UTF-16) and the selected lines, read as read_file reads them.",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: func(o Offers) bool { return o.Selection },
			run: s.selection},
		{def: &sdk.Tool{Name: "get_diagnostics", Title: "Diagnostics", Description: "The editor's diagnostics (LSP Diagnostic objects), per file inside the workspace folders: every diagnostic it holds where it can tell them all (all its language servers), else those it sent agentls; path narrows to one file.",
			InputSchema: pathSchema(false), Annotations: annotations(true)}, needs: func(o Offers) bool { return o.Diagnostics },
			run: s.diagnostics},
		{def: &sdk.Tool{Name: "open_file", Title: "Show a file in the editor", Description: "Show a file of the workspace in the editor (window/showDocument), selecting a range when given (0-based lines and UTF-16 characters).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"range":{"type":"object","properties":{"start":{"type":"object","properties":{"line":{"type":"integer"},"character":{"type":"integer"}}},"end":{"type":"object","properties":{"line":{"type":"integer"},"character":{"type":"integer"}}}}}},"required":["path"]}`),
			Annotations: annotations(true)}, needs: func(o Offers) bool { return o.Show },
			run: s.openFile},
		{def: &sdk.Tool{Name: "propose_edit", Title: "Propose an edit", Description: "Propose a change to a file: the user reviews the diff in the editor and it lands in the editor's buffer only if accepted. " +
			"Either old_text and new_text (old_text must occur exactly once, unless replace_all) or content (the whole new text). A declined edit is an error result and changes nothing.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file, relative to the workspace folder or absolute inside it"},"old_text":{"type":"string"},"new_text":{"type":"string"},"replace_all":{"type":"boolean"},"content":{"type":"string","description":"the whole new text (instead of old_text/new_text)"}},"required":["path"]}`),
			Annotations: annotations(false)}, needs: func(o Offers) bool { return o.Ask },
			run: s.proposeEdit},
		coreTool("run_command", "run_command", func(o Offers) bool { return o.Ask }, "Run a command (asks)", false),
		{def: &sdk.Tool{Name: "git_status", Title: "git status", Description: "git status of the workspace folder (porcelain v1, with the branch), run as run_command runs `git status --porcelain=v1 --branch`.",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: func(o Offers) bool { return o.Ask },
			run: func(ctx context.Context, c *conn, client string, _ json.RawMessage) (string, bool) {
				return c.call(ctx, client, "run_command", json.RawMessage(`{"command":"git status --porcelain=v1 --branch"}`))
			}},
		coreTool(agent.SessionsToolName, agent.SessionsToolName, func(o Offers) bool { return o.Ask }, "agentls sessions", true),
		coreTool(agent.TranscriptToolName, agent.TranscriptToolName, func(o Offers) bool { return o.Ask }, "agentls transcript", true),
	}
	all = append(all, s.extraTools()...)
	for i := range all {
		if all[i].missing == "" {
			all[i].missing = map[string]string{"list_open_documents": docs, "get_selection": "an editor that tells agentls its selection",
				"get_diagnostics": "an editor that sends agentls diagnostics", "open_file": "an editor that shows documents (window/showDocument)"}[all[i].def.Name]
		}
		if all[i].missing == "" {
			all[i].missing = ask
		}
	}
	return all
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func pathSchema(required bool) json.RawMessage {
	if required {
		return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	}
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
}

// handler is the SDK handler of t over transport.
func (s *Server) handler(transport string, t tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		c := s.connOf(transport, req.Session, clientName(req.ClientInfo()))
		text, isErr := t.run(ctx, c, c.client(req.ClientInfo()), req.Params.Arguments)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isErr}, nil
	}
}

// client is who asks, as a card names it: the client's name from its
// clientInfo (untrusted text: escaped and cut where the card shows it)
// and the connection.
func (c *conn) client(info *sdk.Implementation) string {
	return clientName(info) + " (MCP, " + c.label + ")"
}

// clientName is the client's own name, cut to 64 characters, and quoted
// (Go syntax: every control or invisible character escaped) unless it is
// plain: letters, digits, spaces and ._-/@+#. A name is the client's to
// choose, so one that reads as another connection's label
// ("claude-code (MCP, stdio connection 1)") or as a card's line must read
// as the client's own text before the connection it really came over.
func clientName(info *sdk.Implementation) string {
	if info == nil || strings.TrimSpace(info.Name) == "" {
		return "an MCP client that gave no name"
	}
	name := info.Name
	cut := false
	if r := []rune(name); len(r) > 64 {
		name, cut = string(r[:64]), true
	}
	if !plainName(name) {
		name = strconv.Quote(name)
	}
	if cut {
		name += "…"
	}
	return name
}

// plainName reports whether name needs no quotes on a card.
func plainName(name string) bool {
	if strings.TrimSpace(name) != name || strings.Contains(name, "  ") {
		return false
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" ._-/@+#", r) {
			return false
		}
	}
	return true
}

// call runs one call of the core's tool name for client.
func (c *conn) call(ctx context.Context, client, name string, in json.RawMessage) (string, bool) {
	res := c.s.ed.Call(ctx, agent.ExternalCall{Client: client, SessionID: c.session, Tool: name, Input: in})
	return res.Text, res.IsError
}

func jsonText(v any) (string, bool) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "ERROR: " + err.Error(), true
	}
	return string(b), false
}

// within reports whether path lies inside one of the workspace folders,
// links resolved: nothing outside them is named to an outside agent.
func (s *Server) within(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	for _, f := range s.ed.Folders() {
		rf, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rf, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(os.PathSeparator)) {
			return true
		}
	}
	return false
}

// openDocuments are the open documents inside the workspace folders.
func (s *Server) openDocuments() []Document {
	out := []Document{}
	for _, d := range s.ed.Documents() {
		if s.within(d.Path) {
			out = append(out, d)
		}
	}
	return out
}

func (s *Server) selection(ctx context.Context, c *conn, client string, _ json.RawMessage) (string, bool) {
	sel, ok := s.ed.Selection()
	if !ok {
		return "ERROR: the editor has not told agentls of a selection yet", true
	}
	in, _ := json.Marshal(map[string]any{"path": sel.Path, "start_line": sel.Range.Start.Line + 1, "end_line": sel.Range.End.Line + 1})
	text, isErr := c.call(ctx, client, "read_file", in)
	if isErr {
		return text, true
	}
	head, _ := json.Marshal(sel)
	return string(head) + "\n" + text, false
}

func (s *Server) diagnostics(ctx context.Context, _ *conn, _ string, in json.RawMessage) (string, bool) {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(in, &a)
	want := ""
	if a.Path != "" {
		want = s.abs(a.Path)
	}
	held := s.ed.Diagnostics()
	if s.ed.Offers().Extras.Diagnostics {
		// Every diagnostic the editor holds, of all its language servers.
		r, err := ask(ctx, s.ed, wire.EditorDiagnostics, wire.EditorDiagnosticsParams{Path: want})
		if err != nil {
			return "ERROR: the editor did not list its diagnostics: " + err.Error(), true
		}
		held = held[:0:0]
		for _, f := range r.Files {
			if len(f.Diagnostics) == 0 {
				continue
			}
			held = append(held, FileDiagnostics{Path: f.Path, Diagnostics: f.Diagnostics})
		}
	}
	out := []FileDiagnostics{}
	for _, d := range held {
		if s.within(d.Path) && (want == "" || filepath.Clean(d.Path) == want) {
			out = append(out, d)
		}
	}
	return jsonText(out)
}

// abs makes p absolute against the first workspace folder.
func (s *Server) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if f := s.ed.Folders(); len(f) > 0 {
		return filepath.Join(f[0], p)
	}
	return filepath.Clean(p)
}

func (s *Server) openFile(ctx context.Context, _ *conn, _ string, in json.RawMessage) (string, bool) {
	var a struct {
		Path  string      `json:"path"`
		Range *wire.Range `json:"range"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.Path == "" {
		return `ERROR: path is required: give {"path": "<a file in the workspace>", "range"?: {"start": {"line", "character"}, "end": {...}}}`, true
	}
	p := s.abs(a.Path)
	if !s.within(p) {
		return fmt.Sprintf("ERROR: %s is not a file inside the workspace folders (%s): open_file shows only those", a.Path, strings.Join(s.ed.Folders(), ", ")), true
	}
	if err := s.ed.ShowDocument(ctx, p, a.Range); err != nil {
		return "ERROR: the editor did not show " + a.Path + ": " + err.Error(), true
	}
	return "shown in the editor: " + p, false
}

func (s *Server) proposeEdit(ctx context.Context, c *conn, client string, in json.RawMessage) (string, bool) {
	var a struct {
		Path       string  `json:"path"`
		OldText    *string `json:"old_text"`
		NewText    *string `json:"new_text"`
		ReplaceAll bool    `json:"replace_all"`
		Content    *string `json:"content"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.Path == "" {
		return `ERROR: path is required: give {"path", "old_text", "new_text"} or {"path", "content"}`, true
	}
	switch {
	case a.Content != nil && a.OldText == nil && a.NewText == nil:
		b, _ := json.Marshal(map[string]any{"path": a.Path, "content": *a.Content})
		return c.call(ctx, client, "write_file", b)
	case a.Content == nil && a.OldText != nil && a.NewText != nil:
		b, _ := json.Marshal(map[string]any{"path": a.Path, "old_text": *a.OldText, "new_text": *a.NewText, "replace_all": a.ReplaceAll})
		return c.call(ctx, client, "edit_file", b)
	}
	return "ERROR: give either old_text and new_text (a replacement) or content (the whole new text), not both or neither", true
}
