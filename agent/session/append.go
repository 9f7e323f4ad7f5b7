package session

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/agentls/agentls/agent/model"
)

// Appender is one session's files held open for a turn (the session file
// and the workspace's index.log), so a turn of many messages opens each
// once: the turn holds the session's lock (LockAcross) while it appends,
// and closes the Appender when it ends. Durability is Append's: each
// message is one write, not synced, as before.
type Appender struct {
	s        Store
	id       string
	jsonl    heldFile
	indexLog heldFile
}

// Appender holds session id's files for appends; Close lets them go.
func (s Store) Appender(id string) *Appender {
	return &Appender{s: s, id: id,
		jsonl:    heldFile{path: s.Path(id), flag: os.O_RDWR | os.O_CREATE | os.O_APPEND},
		indexLog: heldFile{path: s.IndexLogPath(), flag: os.O_WRONLY | os.O_CREATE | os.O_APPEND},
	}
}

// Close closes the files the Appender holds.
func (a *Appender) Close() error {
	err := a.jsonl.close()
	if lerr := a.indexLog.close(); err == nil {
		err = lerr
	}
	return err
}

// Append adds messages to a session, one line each, in one write, opening
// the session's files for this append only; a turn holds them with an
// Appender instead.
func (s Store) Append(id string, msgs ...model.Message) error {
	a := s.Appender(id)
	defer a.Close()
	return a.Append(msgs...)
}

// Append adds messages to the session, one line each, in one write. It always
// starts on a new line (a line torn by a crash stays a line of its own, for
// load to set aside, instead of gluing onto this one), and a failed write
// (a full disk) is undone: the file is cut back to its size before, so it
// holds whole lines only and the error says the turn was not saved.
func (a *Appender) Append(msgs ...model.Message) error {
	id := a.id
	data, err := jsonLines(msgs)
	if err != nil {
		return err
	}
	f, err := a.jsonl.file()
	if err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	fi, err := f.Stat()
	if err != nil {
		a.jsonl.close()
		return fmt.Errorf("save session %s: %w", id, err)
	}
	size := fi.Size()
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			a.jsonl.close()
			return fmt.Errorf("save session %s: %w", id, err)
		}
		if last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	if _, err := f.Write(data); err != nil {
		terr := f.Truncate(size)
		a.jsonl.close()
		if terr != nil {
			return fmt.Errorf("save session %s: %w (and cutting back the partial line failed: %v; it will be set aside when the session is next loaded)", id, err, terr)
		}
		return fmt.Errorf("save session %s: %w: this message was not saved, the session file is unchanged", id, err)
	}
	var before fs.FileInfo
	if size > 0 {
		before = fi
	}
	a.s.indexAppend(id, before, msgs, &a.indexLog)
	return nil
}
