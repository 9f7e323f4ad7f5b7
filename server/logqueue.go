package server

import (
	"fmt"
	"sync/atomic"

	"go.lsp.dev/protocol"
)

// logQueueSize bounds the log messages waiting for the editor to read.
const logQueueSize = 256

// logItem is one window/logMessage waiting to be written.
type logItem struct {
	typ protocol.MessageType
	msg string
}

// logQueue decouples window/logMessage (and the registry's OnChange) from
// the connection: the registry logs while holding its lock, and an editor
// that stops reading stdout must not stall it. Callers never block: a full
// queue drops the message and counts it; one goroutine owned by the server
// writes the rest, in order.
type logQueue struct {
	items   chan logItem
	changed chan struct{} // capacity 1: OnChange signals coalesce
	stop    chan struct{} // closed once everything is shut down
	dropped atomic.Int64
}

func newLogQueue() *logQueue {
	return &logQueue{items: make(chan logItem, logQueueSize), changed: make(chan struct{}, 1), stop: make(chan struct{})}
}

// enqueue queues a message, or drops and counts it when the queue is full.
func (q *logQueue) enqueue(typ protocol.MessageType, msg string) {
	select {
	case q.items <- logItem{typ, msg}:
	default:
		q.dropped.Add(1)
	}
}

// signalChanged asks the drain goroutine to look at the servers again.
func (q *logQueue) signalChanged() {
	select {
	case q.changed <- struct{}{}:
	default: // one is already pending; it will see this change too
	}
}

// registryCallbacks are the mcp.Options Logf and OnChange of this server:
// both return at once, whatever the editor does.
func (s *Server) registryCallbacks() (logf func(string, ...any), onChange func()) {
	logf = func(f string, a ...any) { s.logMessage(logLog, fmt.Sprintf(f, a...)) }
	return logf, s.logs.signalChanged
}

// drainLogs writes queued messages until stop is closed, then writes what is
// still queued and returns. Serve runs it with goFn and closes stop after
// closeAll, so the messages of shutting down still go out.
func (s *Server) drainLogs() {
	q := s.logs
	for {
		select {
		case it := <-q.items:
			s.writeLog(it)
		case <-q.changed:
			s.serversChanged()
		case <-q.stop:
			for {
				select {
				case it := <-q.items:
					s.writeLog(it)
				default:
					s.reportDropped()
					return
				}
			}
		}
		s.reportDropped()
	}
}

// writeLog sends one window/logMessage.
func (s *Server) writeLog(it logItem) {
	s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: it.typ, Message: it.msg})
}

// reportDropped tells the editor how many messages it missed, once it
// reads again.
func (s *Server) reportDropped() {
	if n := s.logs.dropped.Swap(0); n > 0 {
		s.writeLog(logItem{logWarning, fmt.Sprintf("agentls: %d log messages dropped (the editor was not reading)", n)})
	}
}
