package server

import (
	"strings"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/trust"
	"go.lsp.dev/protocol"
)

// Message types of window/showMessage and window/logMessage.
const (
	logError   = protocol.MessageTypeError
	logWarning = protocol.MessageTypeWarning
	logInfo    = protocol.MessageTypeInfo
	logLog     = protocol.MessageTypeLog
)

// notify sends a notification. Its write uses a detached context: a final
// message (progress end, a summary) must go out even while shutting down.
func (s *Server) notify(method string, params any) {
	if s.conn == nil {
		return
	}
	if err := s.conn.Notify(method, params); err != nil {
		// Once the connection is gone every write fails: one line says so.
		s.notifyFailOnce.Do(func() { s.opts.Logf("agentls: cannot write to the editor (%s): %v", method, err) })
	}
}

// logMessage queues window/logMessage: warnings (a server failed, a config
// error with file:line) go here, not into pop-ups. It never blocks (see
// logQueue): the registry and the read loop call it.
func (s *Server) logMessage(typ protocol.MessageType, msg string) {
	// G4: a server's stderr or an error text may carry a token; logs are
	// copied around (bug reports, screen shares), so secrets are redacted.
	msg = trust.Redact(msg)
	// Not to Options.Logf: editors log a server's stderr as errors.
	s.logs.enqueue(typ, msg)
}

// showMessage sends window/showMessage, for one-line summaries.
func (s *Server) showMessage(typ protocol.MessageType, msg string) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// serversChanged runs on the log queue's goroutine after the registry's
// OnChange: it reports each new server
// failure once through window/logMessage.
func (s *Server) serversChanged() {
	s.mu.Lock()
	core := s.core
	s.mu.Unlock()
	if core == nil {
		return
	}
	for _, srv := range core.Servers() {
		s.mu.Lock()
		last, seen := s.loggedFails[srv.Name]
		failedNow := srv.State == wire.ServerFailed
		if failedNow && (!seen || last != srv.Error) {
			s.loggedFails[srv.Name] = srv.Error
		} else if !failedNow {
			delete(s.loggedFails, srv.Name)
		}
		s.mu.Unlock()
		if failedNow && (!seen || last != srv.Error) {
			msg := "agentls: MCP server '" + srv.Name + "' failed: " + srv.Error
			if tail := strings.TrimSpace(srv.StderrTail); tail != "" && !strings.Contains(srv.Error, tail) {
				msg += "\nstderr: " + srv.StderrTail
			}
			s.logMessage(logWarning, msg)
		}
	}
}
