package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/mcpserve"
	"github.com/agentls/agentls/wire"
)

// With [serve] mcp = true the editor session is an MCP server too
// (docs/protocol.md section 9): it listens on 127.0.0.1 behind a token and
// publishes the endpoint in the state folder, where `agentls mcp serve`,
// started by an outside agent in this workspace, finds it and passes the
// agent's session through. The outside agent's calls act on this editor:
// its buffers, its cards (naming the agent), its showDocument.

// mcpView is this editor as mcpserve sees it, and the listener.
type mcpView struct {
	s *Server

	mu        sync.Mutex
	selection *mcpserve.Selection
	diags     map[string][]json.RawMessage // by path: the latest the editor sent
	watchers  map[int]func(string)
	nextWatch int
	listener  *mcpserve.Listener
	unpublish func()
}

// serveMCP starts the listener and publishes it, when the user config
// asks for it; said in the editor's log either way it fails.
func (s *Server) serveMCP(core *agent.Core) {
	l, err := mcpserve.New(s.mcp, mcpserve.Options{Version: s.opts.Version, Logf: s.opts.Logf}).
		ListenHTTP(s.ctx, mcpserve.TokenPath(s.stateDir(), os.Getpid()), mcpserve.SocketPath(s.stateDir(), os.Getpid()))
	if err != nil {
		s.logMessage(logWarning, "agentls: the editor's MCP server did not start: "+err.Error())
		return
	}
	s.mcp.mu.Lock()
	s.mcp.listener = l
	s.mcp.mu.Unlock()
	s.publishMCP()
	s.logMessage(logInfo, fmt.Sprintf("agentls: serving this editor to outside MCP agents at %s (token in %s; run `agentls mcp serve` in the workspace to connect one)", l.URL, l.TokenFile))
}

// publishMCP (re)writes the endpoint file with the folders now.
func (s *Server) publishMCP() {
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	if s.mcp.listener == nil {
		return
	}
	if s.mcp.unpublish != nil {
		s.mcp.unpublish()
	}
	remove, err := mcpserve.Publish(s.stateDir(), mcpserve.Endpoint{PID: os.Getpid(), URL: s.mcp.listener.URL, TokenFile: s.mcp.listener.TokenFile, Socket: s.mcp.listener.Socket,
		Folders: s.mcp.Folders(), Editor: s.mcp.Name(), Started: time.Now()})
	if err != nil {
		s.logMessage(logWarning, "agentls: publishing the editor's MCP endpoint: "+err.Error())
		return
	}
	s.mcp.unpublish = remove
}

// closeMCP stops the listener and takes the endpoint away.
func (s *Server) closeMCP() {
	s.mcp.mu.Lock()
	l, unpublish := s.mcp.listener, s.mcp.unpublish
	s.mcp.listener, s.mcp.unpublish = nil, nil
	s.mcp.mu.Unlock()
	if unpublish != nil {
		unpublish()
	}
	if l != nil {
		l.Close()
	}
}

// noteCodeAction keeps what a code action request tells of the editor:
// the selection (or cursor) and the diagnostics there. It is how LSP
// editors say either (VS Code asks on every selection change).
func (v *mcpView) noteCodeAction(p codeActionParams) {
	path, ok := uriToPath(p.TextDocument.URI)
	if !ok {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.selection = &mcpserve.Selection{Path: path, Range: p.Range}
	if v.diags == nil {
		v.diags = map[string][]json.RawMessage{}
	}
	if len(p.Context.Diagnostics) == 0 {
		delete(v.diags, path)
	} else {
		v.diags[path] = p.Context.Diagnostics
	}
}

// changed tells every watcher that the document at uri changed.
func (v *mcpView) changed(uri string) {
	path, ok := uriToPath(uri)
	if !ok {
		return
	}
	v.mu.Lock()
	ws := make([]func(string), 0, len(v.watchers))
	for _, w := range v.watchers {
		ws = append(ws, w)
	}
	v.mu.Unlock()
	for _, w := range ws {
		w(path)
	}
}

func (v *mcpView) Name() string {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	if v.s.clientName == "" {
		return "editor"
	}
	return v.s.clientName
}

func (v *mcpView) Folders() []string { return (&workspace{s: v.s}).Folders() }

func (v *mcpView) Offers() mcpserve.Offers {
	v.s.mu.Lock()
	info := v.s.client
	v.s.mu.Unlock()
	return mcpserve.Offers{Documents: true, Selection: true, Diagnostics: true, Show: info.showDocument,
		Ask: info.approvals || info.showMessageReq || info.codeActions, Extras: info.editor}
}

// Request sends the editor one of the agent/editor/* requests, only of
// the extras it announced.
func (v *mcpView) Request(ctx context.Context, m wire.Method, params, result any) error {
	v.s.mu.Lock()
	ex := v.s.client.editor
	v.s.mu.Unlock()
	announced := map[string]bool{
		wire.EditorTabs.Name: ex.Tabs, wire.EditorCloseTab.Name: ex.Tabs,
		wire.EditorTerminals.Name: ex.Terminals, wire.EditorCreateTerminal.Name: ex.Terminals,
		wire.EditorSendTerminal.Name: ex.Terminals, wire.EditorReadTerminal.Name: ex.Terminals,
		wire.EditorTasks.Name: ex.Tasks, wire.EditorRunTask.Name: ex.Tasks,
		wire.EditorDiagnostics.Name: ex.Diagnostics,
	}
	if !announced[m.Name] {
		return fmt.Errorf("the editor did not announce %s", m.Name)
	}
	return v.s.conn.Call(ctx, m.Name, params, result)
}

func (v *mcpView) Documents() []mcpserve.Document {
	out := []mcpserve.Document{}
	for _, d := range v.s.docs.list() {
		if d.path != "" {
			out = append(out, mcpserve.Document{Path: d.path, Version: d.version})
		}
	}
	return out
}

func (v *mcpView) Selection() (mcpserve.Selection, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.selection == nil {
		return mcpserve.Selection{}, false
	}
	return *v.selection, true
}

func (v *mcpView) Diagnostics() []mcpserve.FileDiagnostics {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]mcpserve.FileDiagnostics, 0, len(v.diags))
	for p, d := range v.diags {
		out = append(out, mcpserve.FileDiagnostics{Path: p, Diagnostics: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func (v *mcpView) ShowDocument(ctx context.Context, path string, sel *wire.Range) error {
	params := &protocol.ShowDocumentParams{URI: protocol.URI(pathToURI(path)), TakeFocus: true}
	if sel != nil {
		params.Selection = &protocol.Range{
			Start: protocol.Position{Line: uint32(max(sel.Start.Line, 0)), Character: uint32(max(sel.Start.Character, 0))},
			End:   protocol.Position{Line: uint32(max(sel.End.Line, 0)), Character: uint32(max(sel.End.Character, 0))}}
	}
	var res protocol.ShowDocumentResult
	if err := v.s.conn.Call(ctx, protocol.MethodShowDocument, params, &res); err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("the editor could not show it")
	}
	return nil
}

// Call runs an outside agent's call as a task of this editor: its cards,
// its agent/event and $/progress, its buffers.
func (v *mcpView) Call(ctx context.Context, c agent.ExternalCall) agent.ExternalResult {
	s := v.s
	core, err := s.ensureCore()
	if err != nil {
		return agent.ExternalResult{Text: "ERROR: " + err.Error(), IsError: true, Status: wire.StatusFailed}
	}
	s.mu.Lock()
	s.tokenSeq++
	token := fmt.Sprintf("agentls/task/%d", s.tokenSeq)
	s.mu.Unlock()
	sink := s.newTaskSink(token, c.Client+": "+c.Tool, core.Mode(c.SessionID))
	s.goFn(sink.run)
	res := core.CallTool(ctx, c, agent.TaskIO{Approver: s.approver(""), Events: sink, Workspace: &workspace{s: s}})
	sink.finish(wire.RunResult{StopReason: wire.StopEndTurn, Text: string(res.Status)})
	return res
}

func (v *mcpView) Watch(changed func(string)) (stop func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.watchers == nil {
		v.watchers = map[int]func(string){}
	}
	v.nextWatch++
	id := v.nextWatch
	v.watchers[id] = changed
	return func() {
		v.mu.Lock()
		delete(v.watchers, id)
		v.mu.Unlock()
	}
}
