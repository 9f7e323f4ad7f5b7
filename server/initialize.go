package server

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/wire"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
)

// initializeParams is the part of InitializeParams agentls reads, decoded
// leniently (clients send 3.17 fields protocol v0.12 does not know).
type initializeParams struct {
	// ClientInfo names the editor (shown to outside MCP agents, mcp_serve.go).
	ClientInfo *struct {
		Name string `json:"name"`
	} `json:"clientInfo"`
	RootURI          string `json:"rootUri"`
	RootPath         string `json:"rootPath"`
	WorkspaceFolders []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
	Capabilities struct {
		Experimental struct {
			// Agentls is nil for a client without an agentls plugin.
			Agentls *struct {
				Approvals bool `json:"approvals"`
				Forms     bool `json:"forms"`
				Events    bool `json:"events"`
				Apps      bool `json:"apps"`
				// Editor are the editor extras it answers (agent/editor/*).
				Editor wire.EditorExtras `json:"editor"`
			} `json:"agentls"`
		} `json:"experimental"`
		Window struct {
			WorkDoneProgress bool             `json:"workDoneProgress"`
			ShowMessage      *json.RawMessage `json:"showMessage"`
			ShowDocument     *struct {
				Support bool `json:"support"`
			} `json:"showDocument"`
		} `json:"window"`
		Workspace struct {
			ApplyEdit     bool `json:"applyEdit"`
			WorkspaceEdit struct {
				DocumentChanges bool `json:"documentChanges"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
		TextDocument struct {
			CodeAction *struct {
				CodeActionLiteralSupport *json.RawMessage `json:"codeActionLiteralSupport"`
			} `json:"codeAction"`
		} `json:"textDocument"`
	} `json:"capabilities"`
}

// clientInfo is what the client can do, from its initialize capabilities.
type clientInfo struct {
	approvals        bool // the request card: agent/requestApproval
	forms            bool // it shows an elicitation's form and answers with its content
	events           bool // agent/event notifications
	showMessageReq   bool // the message card: window/showMessageRequest
	workDoneProgress bool
	showDocument     bool
	applyEdit        bool
	versionedEdits   bool // documentChanges: a TextDocumentEdit names the version it was computed from
	codeActionLits   bool
	codeActions      bool              // textDocument.codeAction announced: the code-action card can be answered
	plugin           bool              // experimental.agentls announced: a plugin has its own way to the mode and the rules
	apps             bool              // it renders an MCP App a tool result offers (agent/mcp/app)
	editor           wire.EditorExtras // the editor extras it answers (agent/editor/*, docs/protocol.md section 9)
}

// initialize answers at once: it reads capabilities and folders and never
// waits for an MCP server.
func (s *Server) initialize(_ context.Context, p initializeParams) (*protocol.InitializeResult, error) {
	c := p.Capabilities
	info := clientInfo{
		showMessageReq:   c.Window.ShowMessage != nil && string(*c.Window.ShowMessage) != "null",
		workDoneProgress: c.Window.WorkDoneProgress,
		showDocument:     c.Window.ShowDocument != nil && c.Window.ShowDocument.Support,
		applyEdit:        c.Workspace.ApplyEdit,
		codeActions:      c.TextDocument.CodeAction != nil,
	}
	if a := c.Experimental.Agentls; a != nil {
		info.approvals, info.forms, info.events, info.plugin, info.apps = a.Approvals, a.Forms, a.Events, true, a.Apps
		info.editor = a.Editor
	}
	if c.TextDocument.CodeAction != nil {
		info.codeActionLits = c.TextDocument.CodeAction.CodeActionLiteralSupport != nil
	}
	info.versionedEdits = c.Workspace.WorkspaceEdit.DocumentChanges

	var folders []string
	for _, f := range p.WorkspaceFolders {
		if dir, ok := uriToPath(f.URI); ok {
			folders = append(folders, dir)
		}
	}
	if len(folders) == 0 {
		if dir, ok := uriToPath(p.RootURI); ok {
			folders = append(folders, dir)
		} else if p.RootPath != "" && filepath.IsAbs(p.RootPath) {
			folders = append(folders, filepath.Clean(p.RootPath))
		}
	}
	if len(folders) == 0 {
		if wd, err := os.Getwd(); err == nil {
			folders = append(folders, wd)
		}
	}

	s.mu.Lock()
	s.client = info
	if p.ClientInfo != nil {
		s.clientName = p.ClientInfo.Name
	}
	s.folders = folders
	s.state = initialized
	s.mu.Unlock()

	var codeActionProvider any = true
	if info.codeActionLits {
		codeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.Source, protocol.QuickFix}}
	}
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
			},
			CodeActionProvider:     codeActionProvider,
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: commandNames},
			Workspace: &protocol.ServerCapabilitiesWorkspace{WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{
				Supported: true, ChangeNotifications: true}},
			Experimental: wire.Experimental{Agentls: wire.ProtocolVersion{Version: wire.Version}},
		},
		ServerInfo: &protocol.ServerInfo{Name: "agentls", Version: s.opts.Version},
	}, nil
}

// initialized builds the agent, starts the user-tier MCP servers in the
// background and asks for the launch of workspace-tier ones (G1).
func (s *Server) initialized() {
	s.mu.Lock()
	again := s.started
	s.started = true
	s.mu.Unlock()
	if again {
		return
	}
	core, err := s.ensureCore()
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	if cfg != nil {
		for _, d := range cfg.Diagnostics {
			msg := "agentls: config: " + d.String()
			s.logMessage(logWarning, msg)
			// A config error is a real problem: stderr too, once (initialized runs once).
			s.opts.Logf("%s", trust.Redact(msg))
		}
	}
	if err != nil {
		s.logMessage(logError, err.Error())
		s.opts.Logf("%s", trust.Redact(err.Error()))
		return
	}
	core.StartServers(s.ctx)
	if cfg != nil && cfg.Serve.MCP {
		s.serveMCP(core)
	}
	s.goFn(func() {
		for _, srv := range core.Servers() {
			if srv.Origin != config.Workspace || (srv.State != wire.ServerNeedsApproval && srv.State != wire.ServerApprovalStale) {
				continue
			}
			// G1: a cloned repository gets no code execution on open; its
			// servers start only after the user approved this exact card,
			// asked through the same paths as tool calls. A denial, a
			// timeout or shutdown leaves the server stopped.
			state, err := core.TrustServer(s.ctx, srv.Name, s.approver(""))
			if s.shuttingDown() {
				return
			}
			if err != nil {
				s.logMessage(logWarning, "agentls: MCP server '"+srv.Name+"' not started: "+err.Error())
				continue
			}
			s.logMessage(logInfo, "agentls: MCP server '"+srv.Name+"': "+string(state))
		}
	})
}

// shutdown ends every task (their approvals deny) and every MCP server.
func (s *Server) shutdown(context.Context, wire.NoParams) (wire.Null, error) {
	s.mu.Lock()
	s.shutdownReq = true
	s.mu.Unlock()
	s.closeAll()
	return wire.Null{}, nil
}

// exit ends Serve; the process exits from main (a blocked read of stdin is
// not interrupted by anything else).
func (s *Server) exit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited {
		return
	}
	s.exited = true
	if !s.shutdownReq {
		s.exitCode = 1
	}
	close(s.exitCh)
}

// uriToPath turns a file: URI into a clean absolute path. Other schemes
// (untitled:, ...) are not paths.
func uriToPath(raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := u.Path
	if p == "" || !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}

// pathToURI is the file: URI of an absolute path.
func pathToURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// shuttingDown reports whether shutdown (or the end of Serve) began.
func (s *Server) shuttingDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == shuttingDown || s.ctx.Err() != nil
}
