package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// A turn journal is a side file next to a session (<id>.jsonl.turn) that
// holds what a running turn has not stored yet: the text the model streams
// (the assistant message is stored only once whole) and which tool calls
// the user approved and which finished. A turn that ends, however it ends,
// stores what it has and removes the journal; a journal found later means
// agentls stopped mid-turn (a crash, a kill -9, a power cut), and the next
// load stores its text as an interrupted answer and answers every call
// left without a result, saying which approved ones never finished.
//
// Each record is one JSON line: {"pid","size"} first (who writes it, and
// the session file's size then), {"text"} as text streams, {"size"} after
// each message the turn stores (what came before is in the session now),
// {"approved",...} and {"done"} around tool calls.

// JournalFlushEvery bounds how long streamed text waits in memory before
// it is written: the text is written at each newline, at journalFlushBytes,
// or this long after the first unwritten delta, whichever comes first, so
// a kill loses at most this much of an answer and a fast stream costs a
// write per line, not per token (BenchmarkTurnJournal).
const (
	JournalFlushEvery = 100 * time.Millisecond
	journalFlushBytes = 8 << 10
)

type journalRecord struct {
	PID      int    `json:"pid,omitempty"`
	Size     *int64 `json:"size,omitempty"`
	Text     string `json:"text,omitempty"`
	Approved string `json:"approved,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Title    string `json:"title,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Done     string `json:"done,omitempty"`
}

// Journal is a running turn's journal. A nil journal does nothing (it
// could not be created: the turn goes on, only unprotected).
type Journal struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	buf    strings.Builder // streamed text not written yet
	timer  *time.Timer
	err    error // the first write error: later records are skipped
	writes int   // records written (BenchmarkTurnJournal reports them)
}

func (s Store) JournalPath(id string) string { return s.Path(id) + ".turn" }

// openJournal starts a turn's journal; nil when it cannot be written.
func (s Store) OpenJournal(id string) (*Journal, error) {
	size := s.Size(id)
	f, err := os.OpenFile(s.JournalPath(id), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session %s: turn journal: %w", id, err)
	}
	j := &Journal{path: s.JournalPath(id), f: f}
	j.record(journalRecord{PID: os.Getpid(), Size: &size})
	if j.err != nil {
		err := j.err
		j.Remove()
		return nil, fmt.Errorf("session %s: turn journal: %w", id, err)
	}
	return j, nil
}

// size is the session file's size (0 when it does not exist).
func (s Store) Size(id string) int64 {
	fi, err := os.Stat(s.Path(id))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Writes is how many records the journal wrote (BenchmarkTurnJournal).
func (j *Journal) Writes() int { return j.writes }

// record writes one record; j.mu is held or j is not shared yet.
func (j *Journal) record(r journalRecord) {
	if j.err != nil {
		return
	}
	line, err := json.Marshal(r)
	if err != nil {
		j.err = err
		return
	}
	j.writes++
	_, j.err = j.f.Write(append(line, '\n'))
}

// text keeps a streamed delta: written at a newline, past
// journalFlushBytes, or JournalFlushEvery after the first unwritten one.
func (j *Journal) Text(delta string) {
	if j == nil || delta == "" {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf.WriteString(delta)
	if strings.Contains(delta, "\n") || j.buf.Len() >= journalFlushBytes {
		j.flushLocked()
		return
	}
	if j.timer == nil {
		j.timer = time.AfterFunc(JournalFlushEvery, j.Flush)
	}
}

func (j *Journal) Flush() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.flushLocked()
}

func (j *Journal) flushLocked() {
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
	if j.buf.Len() == 0 || j.f == nil {
		return
	}
	j.record(journalRecord{Text: j.buf.String()})
	j.buf.Reset()
}

// stored says the session now holds everything before (its file is size
// bytes): the text streamed so far was stored with its message.
func (j *Journal) Stored(size int64) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
	j.buf.Reset()
	if j.f != nil {
		j.record(journalRecord{Size: &size})
	}
}

// approved records that the user approved call id, before it runs.
func (j *Journal) Approved(id, tool, title string, kind wire.ToolKind) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.record(journalRecord{Approved: id, Tool: tool, Title: title, Kind: string(kind)})
	}
}

// done records that call id finished (its result is about to be stored).
func (j *Journal) Done(id string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.record(journalRecord{Done: id})
	}
}

// remove ends the journal: the turn stored all it had.
func (j *Journal) Remove() {
	if j == nil {
		return
	}
	j.Close()
	os.Remove(j.path)
}

// close writes what is held and closes the journal, leaving it for the
// next load to recover (the turn could not store its end).
func (j *Journal) Close() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.flushLocked()
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
}

// journalState is a journal as read back.
type journalState struct {
	pid      int
	size     int64  // the session file's size at the last stored record
	text     string // streamed since then
	approved []journalRecord
	done     map[string]bool
}

func readJournal(path string) (journalState, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return journalState{}, false
	}
	st := journalState{done: map[string]bool{}}
	var text strings.Builder
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var r journalRecord
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &r) != nil {
			continue // torn by the crash that left it
		}
		if r.PID != 0 {
			st.pid = r.PID
		}
		switch {
		case r.Size != nil:
			st.size = *r.Size
			text.Reset()
			st.approved, st.done = nil, map[string]bool{}
		case r.Text != "":
			text.WriteString(r.Text)
		case r.Approved != "":
			st.approved = append(st.approved, r)
		case r.Done != "":
			st.done[r.Done] = true
		}
	}
	st.text = text.String()
	return st, true
}

// LiveElsewhere says whether another live agentls is in a turn of the
// session (its turn journal is there, and its process runs).
func (s Store) LiveElsewhere(id string) bool {
	st, ok := readJournal(s.JournalPath(id))
	return ok && st.pid != os.Getpid() && processAlive(st.pid)
}

// Interrupted reasons (model.Message.Interrupted).
const (
	InterruptedCancelled = "cancelled"
	InterruptedError     = "error"
	InterruptedTooLong   = "too_long" // failed: too long for the model's window, even compacted
	InterruptedStopped   = "stopped"
	InterruptedMaxTokens = "max_tokens" // the answer reached its token budget before it began
	InterruptedRefused   = "refused"    // the model declined; its answer is not kept
)

// recoverTurn stores what a turn that never ended left in its journal: the
// text it streamed, as an interrupted answer, and a result for each of its
// calls left without one. The caller holds the session's in-process lock, so a
// journal of this process is a stale one; a journal of another live
// agentls is its running turn and is left alone. note says what was
// recovered, for the user ("" when there was nothing).
func (s Store) RecoverTurn(id string) (note string) {
	path := s.JournalPath(id)
	st, ok := readJournal(path)
	if !ok {
		return ""
	}
	if st.pid != 0 && st.pid != os.Getpid() && processAlive(st.pid) {
		return ""
	}
	msgs, err := ReadMessages(s.Path(id))
	if err != nil {
		return "" // load says what is wrong with the file
	}
	var add []model.Message
	var said []string
	pending := pendingUses(msgs)
	if len(pending) > 0 {
		approved := map[string]journalRecord{}
		for _, a := range st.approved {
			approved[a.Approved] = a
		}
		var results []model.Block
		for _, u := range pending {
			a, ok := approved[u.ID]
			text := "ERROR: not run: agentls stopped (a crash or a kill) before this call ran."
			switch {
			case st.done[u.ID]:
				text = "ERROR: this call finished, but agentls stopped (a crash or a kill) before its result was saved: its effect, if any, is in place; check before calling it again."
				said = append(said, fmt.Sprintf("%s finished but its result was lost", callName(u.Name, a.Title)))
			case ok && wire.ToolKind(a.Kind) == wire.KindEdit:
				text = "ERROR: the user approved this edit, but agentls stopped (a crash or a kill) before it was applied: it was never applied. Read the file again before editing it."
				said = append(said, fmt.Sprintf("%s was approved but never applied", callName(u.Name, a.Title)))
			case ok:
				text = "ERROR: the user approved this call, but agentls stopped (a crash or a kill) before it finished: it may not have run, or only in part. Check before calling it again."
				said = append(said, fmt.Sprintf("%s was approved but did not finish", callName(u.Name, a.Title)))
			}
			results = append(results, model.Block{Type: "tool_result", ToolUseID: u.ID, Content: text, IsError: true})
		}
		add = append(add, model.Message{Role: "user", Content: results})
	}
	text := ""
	if s.Size(id) == st.size {
		text = st.text // else the session moved past the journal's last record
	}
	lastUser := len(add) > 0 || (len(msgs) > 0 && msgs[len(msgs)-1].Role == "user")
	if lastUser {
		m := model.Message{Role: "assistant", Content: []model.Block{}, Interrupted: InterruptedStopped}
		if text != "" {
			m.Content = []model.Block{{Type: "text", Text: text}}
		}
		add = append(add, m)
	}
	if len(add) > 0 {
		if err := s.Append(id, add...); err != nil {
			return fmt.Sprintf("session %s: the last turn did not finish (agentls stopped), and what it left could not be saved: %v", id, err)
		}
	}
	os.Remove(path)
	if len(add) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s: the last turn did not finish (agentls stopped: a crash or a kill)", id)
	if lastUser && text != "" {
		fmt.Fprintf(&b, "; the answer streamed so far is kept, marked interrupted: %q", trust.Redact(tools.FirstLine(text, 80)))
	} else if lastUser {
		b.WriteString("; no answer had streamed")
	}
	for _, x := range said {
		b.WriteString("; " + trust.Redact(x))
	}
	return b.String()
}

func callName(tool, title string) string {
	if title != "" && title != tool {
		return fmt.Sprintf("%s (%s)", tool, title)
	}
	return tool
}

// pendingUses are the tool_uses of the last message, when it is an
// assistant message: the calls a turn left without results.
func pendingUses(msgs []model.Message) []model.Block {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "assistant" {
		return nil
	}
	var out []model.Block
	for _, b := range msgs[len(msgs)-1].Content {
		if b.Type == "tool_use" {
			out = append(out, b)
		}
	}
	return out
}

// ReadMessages decodes a session file's messages, skipping lines that are
// not one (load sets them aside).
func ReadMessages(path string) ([]model.Message, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var msgs []model.Message
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var m model.Message
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs, nil
}
