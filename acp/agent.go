package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"
)

// Opener opens the agent core for sessions rooted at cwd (and the
// additional directories beside it, more workspace roots), with the MCP
// servers the editor passed as the Editor tier (config.AddEditorServers).
// closeCore ends the core and every server it started.
type Opener func(cwd string, dirs []string, editor []config.EditorServer) (core *agent.Core, closeCore func(), err error)

// Options configure an Agent.
type Options struct {
	Version string // agentInfo.version
	Open    Opener
	// Logf receives problems worth a line on stderr (ACP clients log it).
	Logf func(format string, args ...any)
}

// Agent is one ACP connection's worth of agentls. Make it with New and run
// it with Serve.
type Agent struct {
	opts Options
	conn *jsonrpc.Conn
	ctx  context.Context // ends when the editor closes stdin

	mu       sync.Mutex
	client   clientCapabilities
	cores    map[string]*openCore // by coreKey
	sessions map[string]*session  // by ACP session id
	wg       sync.WaitGroup       // the sessions' command watchers; they end with ctx

	requests, notifications map[string]func(context.Context, json.RawMessage) (any, error) // routes.go
}

// openCore is one opened core and the sessions it serves.
type openCore struct {
	core  *agent.Core
	close func()
}

// New makes an Agent; it starts nothing until Serve.
func New(opts Options) *Agent {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	a := &Agent{opts: opts, cores: map[string]*openCore{}, sessions: map[string]*session{}}
	a.requests, a.notifications = routeTable(a.requestRoutes()), routeTable(a.notificationRoutes())
	return a
}

// Serve speaks ACP over r and w until r ends (the editor closed stdin) or ctx
// ends. On the way out every turn is cancelled (pending permissions deny),
// the replies still owed are written, and every core closes, which ends
// every MCP server and command it started.
func (a *Agent) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.ctx = ctx
	a.conn = jsonrpc.New(r, w, jsonrpc.ACP, a.opts.Logf)
	errc := make(chan error, 1)
	go func() { errc <- a.conn.Serve(ctx, a.handleRequest, a.handleNotification) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	cancel()
	a.mu.Lock()
	cores := make([]*openCore, 0, len(a.cores))
	for _, oc := range a.cores {
		cores = append(cores, oc)
	}
	a.mu.Unlock()
	for _, oc := range cores {
		oc.core.Close() // cancels every task: prompts answer "cancelled"
	}
	a.conn.Wait()
	a.wg.Wait() // the command watchers end with ctx; no handler starts one now
	for _, oc := range cores {
		oc.close()
	}
	return err
}

// handleRequest answers one request through its route (routes.go).
func (a *Agent) handleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if h, ok := a.requests[method]; ok {
		return h(ctx, params)
	}
	return nil, jsonrpc.Errorf(jsonrpc.MethodNotFound, "agentls does not implement %q (it implements %s)", method, implemented)
}

// handleNotification handles one notification through its route; an
// unknown one is ignored.
func (a *Agent) handleNotification(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if h, ok := a.notifications[method]; ok {
		return h(ctx, params)
	}
	return nil, nil
}

// authenticate answers at once whatever its params: authMethods is empty,
// nothing to authenticate.
func (a *Agent) authenticate(context.Context, wire.NoParams) (emptyResponse, error) {
	return emptyResponse{}, nil
}

// sessionCancel is session/cancel: the session's running turn ends.
func (a *Agent) sessionCancel(_ context.Context, p cancelNotification) (emptyResponse, error) {
	if s := a.session(p.SessionID); s != nil {
		s.cancel()
	}
	return emptyResponse{}, nil
}

// call calls the editor (the connection sends $/cancel_request when ctx
// ends) and decodes its result into out.
func (a *Agent) call(ctx context.Context, method string, params, out any) error {
	err := a.conn.Call(ctx, method, params, out)
	var answered *jsonrpc.Error
	switch {
	case errors.As(err, &answered):
		return fmt.Errorf("acp: %s: the editor answered with an error: %s (code %d)", method, answered.Message, answered.Code)
	case err != nil:
		return fmt.Errorf("acp: %w", err)
	}
	return nil
}

func (a *Agent) initialize(_ context.Context, p initializeRequest) (initializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	// Version negotiation: we answer the one major version we speak; a
	// client that needs another closes the connection.
	return initializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: agentCapabilities{
			LoadSession:        true,
			PromptCapabilities: promptCapabilities{EmbeddedContext: true},
			// http and sse servers join the registry as remote servers
			// (Streamable HTTP, falling back to HTTP+SSE), launch-gated.
			MCPCapabilities:     mcpCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: sessionCapabilities{List: &struct{}{}, Resume: &struct{}{}, AdditionalDirectories: &struct{}{}},
		},
		AuthMethods: []struct{}{},
		AgentInfo:   implementation{Name: "agentls", Title: "agentls", Version: a.opts.Version},
	}, nil
}

func (a *Agent) capabilities() clientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// openCore opens (once) the core for cwd and dirs with the editor's servers.
func (a *Agent) openCore(cwd string, dirs []string, servers []mcpServer) (*agent.Core, error) {
	if !filepath.IsAbs(cwd) {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "cwd %q is not an absolute path: ACP sends the session's working directory as an absolute path", cwd)
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "additional directory %q is not an absolute path: expected absolute paths, as cwd is", d)
		}
	}
	editor, err := editorServers(servers)
	if err != nil {
		return nil, err
	}
	key := coreKey(cwd, dirs, editor)
	a.mu.Lock()
	defer a.mu.Unlock()
	if oc, ok := a.cores[key]; ok {
		return oc.core, nil
	}
	if a.ctx.Err() != nil {
		return nil, fmt.Errorf("agentls is shutting down")
	}
	core, closeCore, err := a.opts.Open(cwd, dirs, editor)
	if err != nil {
		return nil, fmt.Errorf("agentls: cannot start the agent for %s: %w", cwd, err)
	}
	a.cores[key] = &openCore{core: core, close: closeCore}
	return core, nil
}

// editorServers turns ACP's mcpServers into the Editor tier's entries.
func editorServers(servers []mcpServer) ([]config.EditorServer, error) {
	out := make([]config.EditorServer, 0, len(servers))
	for _, s := range servers {
		var e config.EditorServer
		switch s.Type {
		case "", "stdio":
			e = config.EditorServer{Name: s.Name, Command: s.Command, Args: s.Args}
			for _, v := range s.Env {
				e.Env = append(e.Env, [2]string{v.Name, v.Value})
			}
		case "http", "sse":
			// One remote transport for both: Streamable HTTP first, the
			// older HTTP+SSE when the server has no such endpoint.
			if s.URL == "" {
				return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "MCP server %q is %s without a url: expected {type, name, url, headers}", s.Name, s.Type)
			}
			e = config.EditorServer{Name: s.Name, URL: s.URL}
			for _, h := range s.Headers {
				e.Headers = append(e.Headers, [2]string{h.Name, h.Value})
			}
		default:
			return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "MCP server %q is of type %q: expected stdio (no type), \"http\" or \"sse\"", s.Name, s.Type)
		}
		out = append(out, e)
	}
	return out, nil
}

// coreKey names a core: one per cwd, additional directories and set of
// editor servers.
func coreKey(cwd string, dirs []string, editor []config.EditorServer) string {
	b, _ := json.Marshal(struct {
		Cwd     string
		Dirs    []string
		Servers []config.EditorServer
	}{cwd, dirs, editor})
	return string(b)
}

func (a *Agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *Agent) addSession(s *session) {
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
}

// sessionIDs lists the live sessions, for an error message.
func (a *Agent) sessionIDs() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.sessions))
	for id := range a.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// decode decodes params, or says what was expected.
func decode(params json.RawMessage, v any, expected string) error {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "bad params: %v; expected %s", err, expected)
	}
	return nil
}

// defaultCwd is the process's working directory (where the editor started
// agentls), for a session/list that names no cwd.
func (a *Agent) defaultCwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "/"
	}
	return wd
}
