//lint:file-ignore SA1019 roots and logging are client features of MCP 2025-11-25, which agentls still speaks to servers of that revision (and older); the SDK deprecates them from 2026-07-28 (SEP-2577), where the log level goes in each call's _meta

package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one live server: its process (nil for a remote server) and its
// MCP session. A restart makes a new conn; a conn is never reused after close.
type conn struct {
	proc      *process
	denied    func() string // what the sandbox refused a stdio server that died, as its stderr tells (trust DeniedHint); nil for a remote one
	transport string        // "stdio", "streamable-http" or "sse"
	revision  string        // the MCP protocol version this server speaks, as negotiated at connect ("2026-07-28", "2025-11-25", ...)
	tail      *ring
	name      string
	cl        *sdk.Client
	calls     listeners   // tool calls in flight that listen for progress and logs
	done      completions // URL elicitations whose completion a call waits for
	logLevel  string
	logf      func(string, ...any)
	prompts   []Prompt    // as listed at connect (and after prompts/list_changed)
	roots     []*sdk.Root // the roots its client holds; guarded by Registry.rootsMu once connected
	release   func()      // frees what the connection holds besides its session (an OAuth loopback listener)
	session   *sdk.ClientSession
	caps      *sdk.ServerCapabilities
	relist    chan struct{} // tools/list_changed arrived (coalesced)
	// ctx ends when the process exits or close begins: every request on
	// this connection derives from it, so none outlives the connection.
	ctx    context.Context
	cancel context.CancelFunc

	closeOnce sync.Once
	closed    chan struct{}
	stopped   atomic.Bool  // close began while the process still ran: we ended it
	bodyBroke *atomic.Bool // a remote server's: its transport saw a response body break off (nil for stdio)
}

// dialConfig is what one connect attempt needs.
type dialConfig struct {
	server         config.Server
	connectTimeout time.Duration
	listTimeout    time.Duration
	grace          time.Duration
	messageMax     int
	logf           func(string, ...any)
	tail           *ring
	roots          []*sdk.Root
	logLevel       string
	tokens         *TokenStore  // nil: no OAuth
	browser        OAuthBrowser // nil: no interactive authorization
}

// newConn is a connection not yet connected.
func newConn(dc dialConfig, transport string) *conn {
	return &conn{transport: transport, tail: dc.tail, name: dc.server.Name, logLevel: dc.logLevel, logf: dc.logf,
		relist: make(chan struct{}, 1), closed: make(chan struct{})}
}

// dial connects the server (spawning it, or over HTTP for a remote one),
// speaks initialize within the connect timeout and lists its tools within
// the list timeout. On failure nothing is left running and the error says
// what happened, with the stderr tail.
func dial(ctx context.Context, dc dialConfig) (*conn, []*sdk.Tool, error) {
	if dc.server.Remote() {
		return dialRemote(ctx, dc)
	}
	env, err := serverEnv(dc.server)
	if err != nil {
		return nil, nil, err
	}
	proc, err := spawn(dc.server, env, dc.grace, dc.tail)
	if err != nil {
		return nil, nil, err
	}
	c := newConn(dc, "stdio")
	c.proc = proc
	c.denied = func() string {
		// A confined server that died may have said which path the
		// kernel refused it, or that it found no network.
		return trust.Confinement(dc.server, "").DeniedHint(dc.server, dc.tail.Tail(40, 8000))
	}
	c.ctx, c.cancel = context.WithCancel(proc.ctx)
	name := dc.server.Name
	filter := newLineFilter(proc.stdout, dc.messageMax, func(line []byte) {
		const show = 200
		s := string(line)
		if len(s) > show {
			s = s[:show] + "…"
		}
		dc.logf("mcp: %s: ignored a line on stdout that is not JSON-RPC: %q", name, s)
		fmt.Fprintf(dc.tail, "[stdout, not JSON-RPC] %s\n", s)
	})
	cctx, cancel := context.WithTimeout(ctx, dc.connectTimeout)
	defer cancel()
	stop := context.AfterFunc(proc.ctx, cancel)
	defer stop()
	session, err := c.client(dc.roots).Connect(cctx, liftTasks(&sdk.IOTransport{Reader: filter, Writer: proc.stdin, MaxLineLength: -1}), nil)
	if err != nil {
		filter.Close()
		return nil, nil, c.fail(ctx, "connect", dc.connectTimeout, "spawn + initialize", err)
	}
	return c.initialized(ctx, dc, session)
}

// client makes the MCP client of one connection: roots (the workspace
// folders), progress and log notifications, tool and prompt list changes,
// elicitation (form and URL, answered through the call in flight). No
// sampling.
func (c *conn) client(roots []*sdk.Root) *sdk.Client {
	relist := func() {
		select {
		case c.relist <- struct{}{}:
		default:
		}
	}
	c.cl = sdk.NewClient(&sdk.Implementation{Name: "agentls", Version: "1"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true},
			Elicitation: elicitCapabilities(), Extensions: map[string]any{tasksExtension: map[string]any{}}},
		ElicitationHandler: c.onElicit,
		ElicitationCompleteHandler: func(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
			c.onElicitComplete(req.Params)
		},
		ToolListChangedHandler:   func(context.Context, *sdk.ToolListChangedRequest) { relist() },
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { relist() },
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			c.onProgress(req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			c.onLog(req.Params)
		},
	})
	addTaskMethods(c.cl)
	c.cl.AddRoots(roots...)
	c.roots = roots
	return c.cl
}

// initialized records the session and lists the tools.
func (c *conn) initialized(ctx context.Context, dc dialConfig, session *sdk.ClientSession) (*conn, []*sdk.Tool, error) {
	c.session = session
	if res := session.InitializeResult(); res != nil {
		c.caps, c.revision = res.Capabilities, res.ProtocolVersion
	}
	tools, err := c.listTools(ctx, dc.listTimeout)
	if err != nil {
		return nil, nil, c.fail(ctx, "tools/list", dc.listTimeout, "", err)
	}
	// 2026-07-28 has no logging/setLevel: the level goes in each call's
	// _meta instead (withLogLevel).
	if c.caps != nil && c.caps.Logging != nil && dc.logLevel != "" && !c.stateless() {
		lctx, cancel := context.WithTimeout(ctx, dc.listTimeout)
		if err := session.SetLoggingLevel(lctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(dc.logLevel)}); err != nil {
			dc.logf("mcp: %s: logging/setLevel %s: %v", dc.server.Name, dc.logLevel, err)
		}
		cancel()
	}
	// A server whose prompts cannot be listed still serves its tools.
	if c.prompts, err = c.listPrompts(ctx, dc.listTimeout); err != nil {
		dc.logf("mcp: %s: prompts/list: %v", dc.server.Name, err)
	}
	return c, tools, nil
}

// stateless reports whether the server speaks MCP 2026-07-28 or later: no
// initialize and no session; each request carries the protocol version, the
// client's capabilities and the log level in its _meta.
func (c *conn) stateless() bool { return c.revision >= revision20260728 }

// revision20260728 is the first stateless revision of MCP.
const revision20260728 = "2026-07-28"

// withLogLevel puts the configured log level in a call's _meta on a
// stateless session, where a server sends a request's log messages only
// at the level that request carries.
func (c *conn) withLogLevel(p sdk.Params) {
	if !c.stateless() || c.logLevel == "" {
		return
	}
	m := p.GetMeta()
	if m == nil {
		m = map[string]any{}
	}
	m[sdk.MetaKeyLogLevel] = c.logLevel
	p.SetMeta(m)
}

// listTools reads every page of tools/list within timeout.
func (c *conn) listTools(ctx context.Context, timeout time.Duration) ([]*sdk.Tool, error) {
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	var tools []*sdk.Tool
	for t, err := range c.session.Tools(lctx, nil) {
		if err != nil {
			if lctx.Err() != nil && ctx.Err() == nil && !c.hasExited() {
				return nil, fmt.Errorf("timed out after %s: %w", timeout, context.DeadlineExceeded)
			}
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// fail tears the attempt down and explains it: the process exited (how), the
// step timed out (which timer), or the error itself; plus the stderr tail.
func (c *conn) fail(ctx context.Context, step string, timeout time.Duration, what string, err error) error {
	// Decide "exited" from the process, not from the error's type; a broken
	// pipe shows up as an error a moment before the exit is reaped.
	exitedBefore := c.hasExited()
	if !exitedBefore && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
		exitedBefore = c.waitExit(500 * time.Millisecond)
	}
	c.close()
	var msg string
	switch {
	case exitedBefore:
		msg = fmt.Sprintf("exited during %s: %s", step, c.proc.exitDescription())
		if c.denied != nil {
			if h := c.denied(); h != "" {
				msg += " (" + h + ")"
			}
		}
	case ctx.Err() != nil:
		msg = fmt.Sprintf("%s cancelled: %v", step, context.Cause(ctx))
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("%s timed out after %s", step, timeout)
		if what != "" {
			msg += " (" + what + ")"
		}
	default:
		msg = fmt.Sprintf("%s: %v", step, err)
	}
	return errors.New(withTail(msg, c.tail))
}

// withTail appends the last lines of the server's stderr to a message.
func withTail(msg string, tail *ring) string {
	if t := tail.Tail(10, 1000); t != "" {
		return msg + "; stderr: " + t
	}
	return msg
}

// close ends the session and reaps the process. Idempotent; blocks until the
// process is gone (bounded by the grace period).
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.stopped.Store(!c.hasExited())
		if c.proc == nil {
			// Remote: Close ends the session (a DELETE for Streamable HTTP,
			// bounded by the SDK) before the connection's context goes.
			if c.session != nil {
				c.session.Close()
			}
			c.cancel()
			if c.release != nil {
				c.release()
			}
			close(c.closed)
			return
		}
		c.cancel()
		if c.session != nil {
			c.session.Close()
		}
		c.proc.stdout.Close()
		c.proc.stop()
		close(c.closed)
	})
}

// exited is closed when the server's process was reaped; never, for a
// remote server (its end shows as the session's end).
func (c *conn) exited() <-chan struct{} {
	if c.proc == nil {
		return nil
	}
	return c.proc.exited
}

// hasExited reports whether the server's process was reaped (false for a remote server).
func (c *conn) hasExited() bool { return c.proc != nil && c.proc.hasExited() }

// waitExit waits up to d for the process to be reaped (false at once for a remote server).
func (c *conn) waitExit(d time.Duration) bool { return c.proc != nil && c.proc.waitFor(d) }

// exitDescription says how the process ended.
func (c *conn) exitDescription() string {
	if c.proc == nil {
		return "the connection ended"
	}
	return c.proc.exitDescription()
}

// drainStderr lets a dead process's last words reach the tail.
func (c *conn) drainStderr() {
	if c.proc != nil {
		c.proc.drainStderr()
	}
}
