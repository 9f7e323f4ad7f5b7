package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"
)

// Options configure a Server. Zero values mean the defaults.
type Options struct {
	Version    string // reported in serverInfo
	UserConfig string // the user config file; "" = config.UserPath()
	StateDir   string // sessions, transcripts, trust store; "" = config.StateDir()
	// Logf receives real problems only (stderr in the binary): a recovered
	// panic, the agent failing to start, config errors (once), a connection
	// that cannot be written. Editors log every stderr line as an error, so
	// everything informational goes to window/logMessage instead.
	Logf func(format string, args ...any)
}

// Server is one LSP connection's worth of agentls. Make it with New and run
// it with Serve.
type Server struct {
	opts Options

	conn *jsonrpc.Conn
	// ctx dies when the connection closes, at exit and on a signal: every
	// server-to-client call and every approval wait derives from it, so
	// nothing blocks after the editor is gone. (shutdown ends tasks and
	// denies approvals itself, in closeAll.)
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine this server starts

	docs          documents
	requests      map[string]requestHandler
	commands      map[string]requestHandler // agentls.*: params are the arguments array
	notifications map[string]notificationHandler
	approvals     *approvals
	mcp           *mcpView  // this editor as an MCP server ([serve] mcp, mcp_serve.go)
	logs          *logQueue // window/logMessage, written by one goroutine
	closeOnce     sync.Once
	rootsMu       sync.Mutex // one roots update to the servers at a time
	// notifyFailOnce reports the first failed write to the editor.
	notifyFailOnce sync.Once

	// mu guards the fields below.
	mu            sync.Mutex
	state         lifecycle
	client        clientInfo
	clientName    string   // the editor's clientInfo name
	cmdUsage      cmdUsage // the command session's tokens and cost (commands.go)
	folders       []string // the editor's workspace folders (initialize, then didChangeWorkspaceFolders)
	cfg           *config.Config
	core          *agent.Core
	coreErr       error
	cmdSession    string             // the session command-started tasks continue
	rewindChanged *wire.RewindResult // the last agentls.rewind that kept files changed outside agentls: its forced action is offered
	loggedFails   map[string]string  // server name -> last failure logged
	exitCh        chan struct{}      // closed by the exit notification
	exitCode      int
	exited        bool
	started       bool // initialized was handled
	tokenSeq      int
	progressTasks map[string]string // progress token -> task id
	shutdownReq   bool
}

// drainLimit bounds how long Serve waits for owed replies on the way out.
const drainLimit = 10 * time.Second

type lifecycle int

const (
	uninitialized lifecycle = iota
	initialized
	shuttingDown
)

// New makes a server; it starts nothing until Serve.
func New(opts Options) *Server {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, exitCh: make(chan struct{}), loggedFails: map[string]string{}, progressTasks: map[string]string{}}
	s.approvals = newApprovals(s)
	s.mcp = &mcpView{s: s}
	s.logs = newLogQueue()
	s.requests, s.notifications = s.requestHandlers(), s.notificationHandlers()
	s.commands = map[string]requestHandler{}
	for _, r := range s.commandRoutes() {
		s.commands[r.method] = r.h
	}
	return s
}

// Serve speaks LSP over rwc (Content-Length framing) until the client sends
// exit, the stream ends, or ctx is cancelled (SIGTERM). On the way out it
// ends every task (pending approvals deny) and every MCP server. It returns
// the process exit code LSP asks for: 0 after shutdown, 1 for an exit
// without shutdown. It does not wait for a blocked read of rwc to return:
// the caller exits the process.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.conn = jsonrpc.New(rwc, rwc, jsonrpc.LSP, s.opts.Logf)
	logsDone := make(chan struct{})
	go func() {
		defer close(logsDone)
		defer s.recoverPanic("log queue")
		s.drainLogs()
	}()
	readErr := make(chan error, 1)
	go func() { readErr <- s.conn.Serve(s.ctx, s.handleRequest, s.handleNotification) }()

	code := 0
	select {
	case err := <-readErr:
		code = s.readEndCode(err)
	case <-s.exitCh:
		code = s.exitStatus()
	case <-ctx.Done():
	}
	s.cancel()
	s.closeAll()
	// Handlers finish (their tasks ended in closeAll) and reply before the
	// stream closes: a client that closed only its end still reads them. A
	// client that stopped reading could block a reply forever: the wait is
	// bounded, and the process exits after it.
	// The log queue drains last: handlers finishing now still log.
	limit, cancelLimit := context.WithTimeout(context.Background(), drainLimit)
	defer cancelLimit()
	drained := make(chan struct{})
	go func() { s.conn.Wait(); s.wg.Wait(); close(drained) }()
	select {
	case <-drained:
		close(s.logs.stop)
		select {
		case <-logsDone:
		case <-limit.Done():
		}
	case <-limit.Done():
		close(s.logs.stop)
	}
	if limit.Err() != nil {
		s.opts.Logf("agentls: replies or log messages still pending after %s; exiting anyway", drainLimit)
	}
	s.conn.Close()
	return code
}

// exitStatus is the exit code the exit notification set.
func (s *Server) exitStatus() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// readEndCode is the exit code when reading the client stopped with err: the exit
// notification's if it came first; 0 at a clean end of input (the editor
// closed our stdin); 1, said on stderr, when the input could not be read
// (a frame that cannot be delimited, a read error). Exiting silently with
// 0 there left editors and users with no clue.
func (s *Server) readEndCode(err error) int {
	select {
	case <-s.exitCh:
		return s.exitStatus()
	default:
	}
	if err == nil || errors.Is(err, io.EOF) {
		return 0
	}
	var fe *jsonrpc.FramingError
	if errors.As(err, &fe) {
		s.opts.Logf("%v; agentls cannot find the next message and exits", fe)
	} else {
		s.opts.Logf("agentls: reading from the client: %v; exiting", err)
	}
	return 1
}

// closeAll ends every task and every MCP server, once.
func (s *Server) closeAll() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		core := s.core
		s.state = shuttingDown
		s.mu.Unlock()
		s.approvals.denyAll()
		s.closeMCP() // no outside call starts now; those running end with the core's tasks
		if core != nil {
			core.Close() // every task, then every MCP server
		}
	})
}

// goFn runs f in a goroutine owned by the server.
func (s *Server) goFn(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.recoverPanic("background")
		f()
	}()
}

func (s *Server) recoverPanic(what string) {
	if r := recover(); r != nil {
		s.opts.Logf("agentls: panic in %s: %v", what, r)
	}
}

// stateDir is where transcripts, reports and the trust store live.
func (s *Server) stateDir() string {
	if s.opts.StateDir != "" {
		return s.opts.StateDir
	}
	return config.StateDir()
}

// ensureCore builds the agent core, the MCP registry and the trust store
// from the config of the user file and the workspace roots, once.
func (s *Server) ensureCore() (*agent.Core, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.core != nil || s.coreErr != nil {
		return s.core, s.coreErr
	}
	if s.state == shuttingDown {
		return nil, fmt.Errorf("agentls is shutting down")
	}
	userPath := s.opts.UserConfig
	if userPath == "" {
		userPath = config.UserPath()
	}
	folders := s.folders
	if len(folders) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			s.coreErr = fmt.Errorf("agentls: no workspace folder and no current directory: %w", err)
			return nil, s.coreErr
		}
		folders = []string{wd}
	}
	for _, f := range folders {
		if r := tools.RefusedRoot(f); r != "" {
			// Said once, when the agent starts; not under s.mu (a write).
			msg := "agentls: " + tools.RefusedRootMessage(r) + "."
			s.goFn(func() { s.showMessage(logWarning, msg) })
		}
	}
	cfg := config.Load(userPath, folders)
	s.cfg = cfg
	logf, onChange := s.registryCallbacks()
	s.core, s.coreErr = agent.Open(agent.Setup{
		Config:          cfg,
		Roots:           folders,
		StateDir:        s.opts.StateDir,
		Logf:            func(f string, a ...any) { s.logMessage(logLog, fmt.Sprintf(f, a...)) },
		ServerLogf:      logf,
		OnServersChange: onChange,
	})
	if s.coreErr != nil {
		s.coreErr = fmt.Errorf("agentls: cannot start the agent: %w", s.coreErr)
		s.core = nil
	}
	return s.core, s.coreErr
}
