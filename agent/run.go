package agent

import (
	"sync"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/wire"
)

// previewMax caps the output a tool_result event carries; the model gets
// the whole (capped) result.
const previewMax = 2000

// run is one task's execution state.
type run struct {
	core *Core
	task *Task
	io   TaskIO
	ws   tools.Workspace
	tr   *session.Transcript
	// client is the outside MCP client a call is run for (external.go),
	// named on every card; "" for agentls's own model.
	client string

	emitMu sync.Mutex
	seq    int

	callable  map[string]tools.Tool // this turn's tools by name, built-ins first
	mcpTools  []mcp.Tool            // this turn's MCP tools, sorted by name (what search ranks)
	listed    []mcp.Tool            // the registry's tools toolDefs was built from
	toolDefs  []model.ToolDef       // this turn's tools, rebuilt only when listed changes
	listedGen uint64                // the registry's ToolsGeneration read before listed
	approveMu sync.Mutex            // one approval at a time (approvals.go)
	usage     wire.Usage
	window    int // the model's context window, in tokens
	// tooLong: the turn failed because its request was too long for the
	// model's window even compacted (settle marks it so, and it is not
	// sent again: session/interrupted.go).
	tooLong  bool
	loaded   []string        // MCP tools used or found by search, most recent first (toolsearch.go)
	loadedMu sync.Mutex      // guards loaded while the calls of a batch run
	offered  map[string]bool // this request's tools when search narrowed them; nil: all
	view     session.View    // how the session's history is sent (compact.go)

	// The turn as stored (settle): its history once loaded, whether its
	// prompt was stored, the text of a request that failed or was
	// cancelled, and the journal that keeps what is not stored yet
	// (session/journal.go).
	history  *[]model.Message
	prompted bool
	partial  string
	journal  *session.Journal
	file     *session.Appender // the session's files, held for the turn (store)
	unlock   func()            // releases the session (sessionLock), once the turn is settled
}

func (r *run) emit(e wire.Event) {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.seq++
	e.Seq, e.TaskID, e.SessionID = r.seq, r.task.ID, r.task.SessionID
	if e.Type == wire.EventStatus || e.Type == wire.EventDone {
		e.Mode = r.mode()
		m := r.core.ModelOf(r.task.SessionID)
		e.Profile, e.Model = m.Profile, m.Name
		if e.Type == wire.EventDone && e.Usage != nil {
			// The turn's cost at the model's price ([prices]), for the
			// editors' status lines; none for a model without a price.
			e.Cost = r.core.costOf(m.Name, *e.Usage)
		}
	}
	if r.io.Events != nil {
		r.io.Events.Event(e)
	}
}

func (r *run) emitStatus(msg string) { r.emit(wire.Event{Type: wire.EventStatus, Message: msg}) }

// mode is the mode of the run's session now.
func (r *run) mode() wire.Mode { return r.core.Mode(r.task.SessionID) }
