//lint:file-ignore SA1019 roots and logging are client features of MCP 2025-11-25, which agentls still speaks to servers of that revision (and older); the SDK deprecates them from 2026-07-28 (SEP-2577), where the log level goes in each call's _meta

package mcp

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/agentls/agentls/config"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for zero Options that no config key sets: this package's own.
// A zero Option the config file can set takes package config's default
// (its only source), and a server's timeouts come from config.Server.
const (
	DefaultKillGrace       = 2 * time.Second
	DefaultMessageMaxBytes = 64 << 20
	DefaultMaxRestarts     = 3
	DefaultRestartBackoff  = 500 * time.Millisecond
)

// Options configure a Registry. Zero values mean the docs/config.md defaults.
type Options struct {
	ResultMaxBytes int
	// MaxImageBytes caps the images of one result together; an image
	// past it is described.
	MaxImageBytes       int
	DescriptionMaxChars int
	MaxToolsPerServer   int
	Reserved            []string   // built-in tool names no MCP tool may take
	Gate                LaunchGate // launch consent for workspace-tier servers
	Logf                func(format string, args ...any)
	OnChange            func() // a server's state or tool list changed; runs on its own goroutine, possibly concurrently
	// KillGrace is how long a server gets between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// MessageMaxBytes caps one message from a server; a bigger one is dropped
	// and the call it answered fails, the session lives on.
	MessageMaxBytes int
	// MaxRestarts bounds the restarts on use after a server failed; a call
	// that succeeds resets the count. RestartBackoff is the wait before the
	// second restart, quadrupled for each one after.
	MaxRestarts    int
	RestartBackoff time.Duration
	// Roots are the workspace folders servers see as roots (SetRoots changes them).
	Roots []string
	// Tokens stores OAuth tokens; nil: remote servers get no OAuth.
	Tokens *TokenStore
	// Browser shows an authorization URL; nil: a server that needs
	// authorization fails saying to run `agentls mcp login NAME`.
	Browser OAuthBrowser
	// LogLevel is the least severe server log message asked for
	// (logging/setLevel) and logged; "" = config.DefaultMCPLogLevel.
	LogLevel string
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.ResultMaxBytes, config.DefaultResultMaxBytes)
	def(&o.MaxImageBytes, config.DefaultMaxImageBytes)
	def(&o.DescriptionMaxChars, config.DefaultDescriptionMaxChars)
	def(&o.MaxToolsPerServer, config.DefaultMaxToolsPerServer)
	def(&o.MessageMaxBytes, DefaultMessageMaxBytes)
	def(&o.MaxRestarts, DefaultMaxRestarts)
	if o.KillGrace <= 0 {
		o.KillGrace = DefaultKillGrace
	}
	if o.RestartBackoff <= 0 {
		o.RestartBackoff = DefaultRestartBackoff
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.OnChange == nil {
		o.OnChange = func() {}
	}
	if o.LogLevel == "" {
		o.LogLevel = config.DefaultMCPLogLevel
	}
	return o
}

// server is one configured server and what we know of it. Guarded by Registry.mu.
type server struct {
	cfg      config.Server
	run      *config.Server // cfg as the gate last let it start (a launch choice applied); nil when held
	state    State
	err      string
	warnings []string
	tail     *ring
	conn     *conn     // the live connection, nil unless connected
	tools    []toolDef // last listing; kept after a failure for restart on use
	prompts  []Prompt
	gen      int // bumped by every connect attempt; stale attempts are discarded
	dialing  chan struct{}
	restarts int
	retryAt  time.Time
}

// Registry owns every configured MCP server of one agentls process.
type Registry struct {
	opts    Options
	ctx     context.Context // ends at Close: aborts connects
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	servers map[string]*server
	order   []string
	names   map[string]ToolKey // namespaced name -> (server, tool)
	byKey   map[ToolKey]string // and back
	changed chan struct{}      // closed and replaced on every change
	closed  bool
	listing listingGen // ToolsGeneration's counter
	roots   []*sdk.Root
	rootsMu sync.Mutex // serializes pushing roots to connections (syncRoots)
	// newDeadline starts a call's call_timeout (newCallDeadline); a test
	// may read the timeout given and expire it at once.
	newDeadline func(d time.Duration, expire func()) *callDeadline
}

// NewRegistry makes a registry for the given servers; it starts nothing.
func NewRegistry(servers []config.Server, opts Options) *Registry {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Registry{opts: opts.withDefaults(), ctx: ctx, cancel: cancel,
		servers: map[string]*server{}, changed: make(chan struct{}), newDeadline: newCallDeadline}
	r.roots = rootsOf(opts.Roots)
	for _, s := range servers {
		if _, dup := r.servers[s.Name]; dup {
			r.opts.Logf("mcp: server %q is configured twice (%s); the first entry is used", s.Name, s.Source)
			continue
		}
		srv := &server{cfg: s, state: Stopped, tail: newRing(16 << 10)}
		switch {
		case s.Err != "":
			srv.state, srv.err = Failed, s.Err
		case s.Disabled:
			srv.state = Disabled
		}
		r.servers[s.Name] = srv
		r.order = append(r.order, s.Name)
	}
	sort.Strings(r.order)
	r.listing.shown = make([]bool, len(r.order))
	r.renameLocked()
	return r
}

// gate is the launch decision for one server: "" to start, and then
// srv.run is what starts. Under the registry's lock.
func (r *Registry) gate(srv *server) State {
	st, run := State(NeedsApproval), srv.cfg // no gate, no start: fail closed
	switch {
	case r.opts.Gate != nil:
		st, run = r.opts.Gate(srv.cfg)
	case srv.cfg.Origin == config.User:
		st = ""
	}
	srv.run = nil
	if st == "" {
		srv.run = &run
	}
	return st
}

// Start connects every startable server in the background, in parallel, and
// returns at once.
func (r *Registry) Start(ctx context.Context) {
	for _, name := range r.order {
		r.StartServer(ctx, name)
	}
}

// StartServer (re)evaluates the gate for one server and connects it in the
// background; used after a launch approval. ctx only carries values: an
// attempt ends at the server's connect and list timers or at Close. The
// gate runs under the registry's lock and must not call back into it.
func (r *Registry) StartServer(ctx context.Context, name string) (State, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	srv, ok := r.servers[name]
	if !ok {
		return "", fmt.Errorf("mcp: no server named %q is configured", name)
	}
	if r.closed {
		return Stopped, fmt.Errorf("mcp: registry is closed")
	}
	switch {
	case srv.cfg.Err != "", srv.cfg.Disabled, srv.state == Connected, srv.state == Connecting:
		return srv.state, nil
	}
	if st := r.gate(srv); st != "" {
		srv.state, srv.err = st, ""
		r.notifyLocked()
		return st, nil
	}
	r.dialLocked(ctx, srv)
	return Connecting, nil
}

// dialLocked starts a background connect attempt for srv.
func (r *Registry) dialLocked(ctx context.Context, srv *server) {
	srv.gen++
	gen := srv.gen
	srv.state, srv.err = Connecting, ""
	srv.dialing = make(chan struct{})
	done := srv.dialing
	r.notifyLocked()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(done)
		r.connect(ctx, srv, gen)
	}()
}

// connect runs one attempt and records its outcome unless it went stale.
func (r *Registry) connect(ctx context.Context, srv *server, gen int) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()
	c, tools, err := dial(ctx, r.dialConfig(srv))
	r.mu.Lock()
	if r.closed || srv.gen != gen {
		r.mu.Unlock()
		if c != nil {
			c.close()
		}
		return fmt.Errorf("stopped")
	}
	if err != nil {
		srv.state, srv.err = Failed, err.Error()
		r.opts.Logf("mcp: %s: %v", srv.cfg.Name, err)
		r.notifyLocked()
		r.mu.Unlock()
		return err
	}
	srv.conn, srv.state, srv.err = c, Connected, ""
	srv.prompts = c.prompts
	r.setToolsLocked(srv, tools)
	stale := !sameRoots(c.roots, r.roots) // SetRoots ran while this one connected
	r.wg.Add(2)                           // under the lock: Close cannot be waiting yet
	r.mu.Unlock()
	go func() { defer r.wg.Done(); r.watchExit(srv, c) }()
	go func() { defer r.wg.Done(); r.relistLoop(srv, c) }()
	if stale {
		r.goTracked(func() { r.syncRoots(c) })
	}
	return nil
}

func (r *Registry) dialConfig(srv *server) dialConfig {
	s := srv.cfg
	if srv.run != nil {
		s = *srv.run
	}
	return dialConfig{
		server:         s,
		connectTimeout: s.EffectiveConnectTimeout(),
		listTimeout:    s.EffectiveListTimeout(),
		grace:          r.opts.KillGrace,
		messageMax:     r.opts.MessageMaxBytes,
		logf:           r.opts.Logf,
		tail:           srv.tail,
		roots:          r.currentRoots(),
		logLevel:       r.opts.LogLevel,
		tokens:         r.opts.Tokens,
		browser:        r.opts.Browser,
	}
}

// currentRoots is a copy of the roots servers see now.
func (r *Registry) currentRoots() []*sdk.Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*sdk.Root(nil), r.roots...)
}

// setToolsLocked converts a listing, records warnings and renames everything.
func (r *Registry) setToolsLocked(srv *server, tools []*sdk.Tool) {
	defs, warnings := convertTools(tools, r.opts.DescriptionMaxChars, r.opts.MaxToolsPerServer)
	for _, w := range warnings {
		r.opts.Logf("mcp: %s: warning: %s", srv.cfg.Name, w)
	}
	srv.tools, srv.warnings = defs, warnings
	r.renameLocked()
	r.notifyLocked()
}

// renameLocked reassigns every tool name from the current set of tools.
func (r *Registry) renameLocked() {
	var keys []ToolKey
	for _, name := range r.order {
		for _, t := range r.servers[name].tools {
			keys = append(keys, ToolKey{Server: name, Tool: t.orig})
		}
	}
	r.byKey = AssignNames(keys, r.opts.Reserved)
	r.names = make(map[string]ToolKey, len(r.byKey))
	for k, n := range r.byKey {
		r.names[n] = k
	}
	r.listing.gen++ // every tool list and every name may have changed
}

// notifyLocked wakes Wait and tells OnChange (outside the lock).
func (r *Registry) notifyLocked() {
	r.listing.gen++ // a state changed: who is shown in Tools may have too
	close(r.changed)
	r.changed = make(chan struct{})
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.opts.OnChange() }()
}

// watchExit marks the server failed when its process ends on its own.
// A server that closes its stdout but keeps running is as dead to us.
func (r *Registry) watchExit(srv *server, c *conn) {
	sessionDone := make(chan struct{})
	go func() {
		defer close(sessionDone)
		c.session.Wait() // returns at the latest when close ends the session
	}()
	defer func() { <-sessionDone }()
	if c.proc == nil {
		// Remote: the session ends when the connection does (the stream
		// broke past its retries, or the server ended the session).
		select {
		case <-sessionDone:
			if !c.stopped.Load() {
				r.markFailed(srv, c, "the connection ended ("+c.transport+")")
			}
		case <-c.closed:
		}
		return
	}
	select {
	case <-c.proc.exited:
	case <-sessionDone:
		// The pipe usually ends a moment before the exit is reaped.
		if !c.proc.waitFor(500*time.Millisecond) && !c.stopped.Load() {
			r.markFailed(srv, c, "closed its stdout while still running; stopped it")
			return
		}
	case <-c.closed:
		return
	}
	if !c.stopped.Load() {
		c.proc.drainStderr()
		r.markFailed(srv, c, "exited: "+c.proc.exitDescription())
	}
}

// markFailed records that c is dead and reaps it in the background.
func (r *Registry) markFailed(srv *server, c *conn, what string) string {
	msg := withTail(what, srv.tail)
	r.mu.Lock()
	if srv.conn == c && !r.closed {
		srv.conn, srv.state, srv.err = nil, Failed, msg
		r.opts.Logf("mcp: %s: %s", srv.cfg.Name, msg)
		r.notifyLocked()
	}
	r.mu.Unlock()
	r.goTracked(c.close)
	return msg
}

// goTracked runs f on a goroutine that Close waits for; once the registry
// is closed it runs f inline, since Close may already be done waiting.
func (r *Registry) goTracked(f func()) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		f()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() { defer r.wg.Done(); f() }()
}

// relistLoop re-reads the tool list on every tools/list_changed.
func (r *Registry) relistLoop(srv *server, c *conn) {
	timeout := srv.cfg.EffectiveListTimeout()
	for {
		select {
		case <-c.closed:
			return
		case <-c.exited():
			return
		case <-c.relist:
		}
		ctx, cancel := context.WithCancel(r.ctx)
		stop := context.AfterFunc(c.ctx, cancel)
		tools, err := c.listTools(ctx, timeout)
		var prompts []Prompt
		var perr error
		if err == nil {
			prompts, perr = c.listPrompts(ctx, timeout)
		}
		stop()
		cancel()
		if err != nil {
			r.opts.Logf("mcp: %s: re-listing tools after list_changed: %v", srv.cfg.Name, err)
			continue
		}
		if perr != nil {
			r.opts.Logf("mcp: %s: re-listing prompts after list_changed: %v", srv.cfg.Name, perr)
			prompts = c.prompts
		}
		r.mu.Lock()
		if srv.conn == c {
			c.prompts, srv.prompts = prompts, prompts
			r.setToolsLocked(srv, tools)
		}
		r.mu.Unlock()
	}
}

// Restart stops one server (reaping its processes) and connects it again.
func (r *Registry) Restart(ctx context.Context, name string) (State, error) {
	r.mu.Lock()
	srv, ok := r.servers[name]
	if !ok {
		r.mu.Unlock()
		return "", fmt.Errorf("mcp: no server named %q is configured", name)
	}
	c := srv.conn
	srv.conn, srv.restarts, srv.retryAt = nil, 0, time.Time{}
	srv.gen++ // any attempt in flight is now stale
	if srv.state == Connected || srv.state == Connecting {
		srv.state = Stopped
	}
	r.listing.gen++ // StartServer may return without a notify (closed registry)
	r.mu.Unlock()
	if c != nil {
		c.close()
	}
	return r.StartServer(ctx, name)
}

// Changed is closed at the next change of any server's state, tools or
// prompts; call it again for the change after.
func (r *Registry) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// Wait returns when no server is connecting any more, or ctx ends.
func (r *Registry) Wait(ctx context.Context) {
	for {
		r.mu.Lock()
		busy := false
		for _, srv := range r.servers {
			busy = busy || srv.state == Connecting
		}
		ch := r.changed
		r.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// Close stops every server and reaps every process it started.
func (r *Registry) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.wg.Wait()
		return nil
	}
	r.closed = true
	var conns []*conn
	for _, srv := range r.servers {
		if srv.conn != nil {
			conns = append(conns, srv.conn)
			srv.conn = nil
		}
		if srv.state == Connected || srv.state == Connecting {
			srv.state = Stopped
		}
	}
	r.listing.gen++ // every server just left the listing
	r.mu.Unlock()
	r.cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	r.wg.Wait()
	return nil
}
