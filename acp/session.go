package acp

import (
	"context"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/jsonrpc"
)

// session is one ACP session: a conversation of the core rooted at cwd.
type session struct {
	a    *Agent
	id   string // the ACP session id: the core's session id it started with
	cwd  string
	dirs []string // additional workspace roots beside cwd
	core *agent.Core

	mu       sync.Mutex
	coreID   string             // the conversation the next prompt continues (/new starts another)
	stop     context.CancelFunc // cancels the running turn; nil when none runs
	launched map[string]bool
	perms    *permissions
}

func (a *Agent) startSession(id, cwd string, dirs []string, core *agent.Core) *session {
	s := &session{a: a, id: id, cwd: cwd, dirs: dirs, core: core, coreID: id, launched: map[string]bool{}}
	a.addSession(s)
	return s
}

// announce sends the slash commands now, then again whenever the MCP
// servers' prompts change, until the connection ends.
func (s *session) announce() {
	key := s.announceCommands()
	s.a.wg.Add(1)
	go s.watchCommands(key)
}

func (a *Agent) newSession(_ context.Context, p newSessionRequest) (newSessionResponse, error) {
	core, err := a.openCore(p.Cwd, p.AdditionalDirectories, p.MCPServers)
	if err != nil {
		return newSessionResponse{}, err
	}
	s := a.startSession(core.NewChat(""), p.Cwd, p.AdditionalDirectories, core)
	s.announce()
	m := s.mode()
	return newSessionResponse{SessionID: s.id, Modes: modeState(m), ConfigOptions: s.configOptions(m)}, nil
}

// loadSession replays a stored conversation as session/update, then answers.
func (a *Agent) loadSession(_ context.Context, p loadSessionRequest) (loadSessionResponse, error) {
	core, err := a.openCore(p.Cwd, p.AdditionalDirectories, p.MCPServers)
	if err != nil {
		return loadSessionResponse{}, err
	}
	events, err := core.Replay(p.SessionID)
	if err != nil {
		return loadSessionResponse{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s", err.Error())
	}
	if len(events) == 0 {
		return loadSessionResponse{}, jsonrpc.Errorf(jsonrpc.ResourceNotFound, "no stored session %q for %s (session/list lists them)", p.SessionID, p.Cwd)
	}
	s := a.startSession(p.SessionID, p.Cwd, p.AdditionalDirectories, core)
	tr := newTranslator(nil)
	for _, e := range events {
		if e.Type == "status" && e.Message != "" {
			// ACP has no status update: a note on the stored conversation
			// (lines a repair set aside, before the turns; an answer cut
			// off, after it) is said in the agent's text, marked as
			// agentls's own.
			for _, u := range chunk(updateAgentMessage, "[agentls: "+e.Message+"]\n\n") {
				s.send(u)
			}
			continue
		}
		for _, u := range tr.updates(e) {
			s.send(u)
		}
	}
	s.announce()
	m := s.mode()
	return loadSessionResponse{Modes: modeState(m), ConfigOptions: s.configOptions(m)}, nil
}

// resumeSession continues a stored conversation without replaying it.
func (a *Agent) resumeSession(_ context.Context, p loadSessionRequest) (loadSessionResponse, error) {
	core, err := a.openCore(p.Cwd, p.AdditionalDirectories, p.MCPServers)
	if err != nil {
		return loadSessionResponse{}, err
	}
	if _, err := core.Replay(p.SessionID); err != nil {
		return loadSessionResponse{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s", err.Error())
	}
	s := a.startSession(p.SessionID, p.Cwd, p.AdditionalDirectories, core)
	s.announce()
	m := s.mode()
	return loadSessionResponse{Modes: modeState(m), ConfigOptions: s.configOptions(m)}, nil
}

// listSessions lists the stored conversations of cwd (the process's
// working directory when the client names none), newest first.
func (a *Agent) listSessions(_ context.Context, p listSessionsRequest) (listSessionsResponse, error) {
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	if cwd == "" {
		cwd = a.defaultCwd()
	}
	core, err := a.openCore(cwd, nil, nil)
	if err != nil {
		return listSessionsResponse{}, err
	}
	stored, err := core.Sessions()
	if err != nil {
		return listSessionsResponse{}, err
	}
	out := listSessionsResponse{Sessions: make([]sessionInfo, 0, len(stored))}
	for _, st := range stored {
		out.Sessions = append(out.Sessions, sessionInfo{SessionID: st.SessionID, Cwd: cwd, Title: st.Title,
			UpdatedAt: st.UpdatedAt.UTC().Format(time.RFC3339)})
	}
	return out, nil
}

// send writes one session/update of this session.
func (s *session) send(u sessionUpdate) {
	if err := s.a.conn.Notify(methodSessionUpdate, sessionNotification{SessionID: s.id, Update: u}); err != nil {
		s.a.opts.Logf("agentls acp: session/update: %v", err)
	}
}

// cancel ends the running turn, if any: its pending permission is
// answered cancelled, its processes are reaped, and the prompt answers
// stopReason "cancelled" after its last update. The MCP tasks an earlier
// turn left running on their servers are cancelled there too.
func (s *session) cancel() {
	s.mu.Lock()
	stop, id := s.stop, s.coreID
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.core.CancelSession(id)
}

// askLaunches puts every untrusted server waiting for consent to the user
// once per session, through session/request_permission, before a turn. A
// denial leaves it stopped; the turn goes on without its tools.
func (s *session) askLaunches(ctx context.Context) {
	for _, name := range s.core.ServersAwaitingLaunch() {
		s.mu.Lock()
		asked := s.launched[name]
		s.launched[name] = true
		s.mu.Unlock()
		if asked {
			continue
		}
		if _, err := s.core.TrustServer(ctx, name, s.approver()); err != nil {
			s.a.opts.Logf("agentls acp: MCP server %q not started: %v", name, err)
		}
	}
}
