package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
)

// Versions are the MCP revisions served, newest first: the stateless
// 2026-07-28 (server/discover, no session) and 2025-11-25 (initialize).
var Versions = []string{"2026-07-28", "2025-11-25"}

// Options configure a Server.
type Options struct {
	Version string // agentls's, reported as serverInfo.version
	// Logf receives the server's own problems (never a request's
	// arguments or the token).
	Logf func(format string, args ...any)
}

// Server serves one Editor over MCP, to any number of connections.
type Server struct {
	ed   Editor
	opts Options

	mu    sync.Mutex
	conns map[string]*conn // by transport and session id
	seq   int              // connections so far, for their labels
}

// errNoEditor is what a tool that needs an editor answers without one.
var errNoEditor = errors.New("no editor is served here")

// New makes a Server for ed.
func New(ed Editor, opts Options) *Server {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Server{ed: ed, opts: opts, conns: map[string]*conn{}}
}

// conn is one connection: how its calls are attributed and which agent
// session (mode, transcript) they belong to.
type conn struct {
	s       *Server
	label   string // "stdio connection 1", "HTTP session 3", ...
	session string
}

// connOf is the connection a request came over: over stdio the one
// connection, over HTTP the MCP session (Mcp-Session-Id) it names, or, for
// a request of the sessionless 2026-07-28 revision, its bearer's.
func (s *Server) connOf(transport string, ss *sdk.ServerSession, client string) *conn {
	id := ""
	if ss != nil {
		id = ss.ID()
	}
	key := transport + "\x00" + id
	if transport == "HTTP" && id == "" {
		key += "\x00" + client // sessionless: one per client, for its session and transcript
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conns[key]; c != nil {
		return c
	}
	s.seq++
	label := fmt.Sprintf("%s connection %d", transport, s.seq)
	if transport == "HTTP" && id == "" {
		label = "HTTP, sessionless"
	}
	c := &conn{s: s, label: label, session: agent.NewExternalSession()}
	s.conns[key] = c
	return c
}

// sdkServer is the SDK server of one transport, with the tools and
// resources the editor offers.
func (s *Server) sdkServer(transport string) *sdk.Server {
	name := "agentls"
	if ed := s.ed.Name(); ed != "" {
		name = "agentls (" + ed + ")"
	}
	caps := &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}}
	if s.ed.Offers().Documents {
		caps.Resources = &sdk.ResourceCapabilities{Subscribe: true, ListChanged: true}
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: name, Title: "agentls: the editor as an MCP server", Version: s.opts.Version},
		&sdk.ServerOptions{
			Instructions:              instructions,
			SupportedProtocolVersions: Versions,
			Capabilities:              caps,
			SubscribeHandler:          s.subscribe,
			UnsubscribeHandler:        func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		})
	listed := s.tools()
	for _, t := range listed {
		srv.AddTool(t.def, s.handler(transport, t))
	}
	srv.AddReceivingMiddleware(s.notOffered(listed))
	return srv
}

const instructions = "agentls serves the editor it runs in: its open documents with their unsaved text, selection, diagnostics, " +
	"and edits through the editor's review. Every call that reads a file, edits or runs something goes through agentls's gates: " +
	"the user may be asked on a card naming you, and a denied call is an error result. Propose edits with propose_edit; " +
	"they land in the editor's buffer only when the user accepts."

// ServeStdio serves one connection on r and w (newline-delimited JSON-RPC)
// until the client closes it or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	srv := s.sdkServer("stdio")
	stop := s.serveResources(ctx, srv, "stdio")
	defer stop()
	err := srv.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
