package session

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/agentls/agentls/agent/model"
)

// Append adds messages to a session, one line each, in one write. It always
// starts on a new line (a line torn by a crash stays a line of its own, for
// load to set aside, instead of gluing onto this one), and a failed write
// (a full disk) is undone: the file is cut back to its size before, so it
// holds whole lines only and the error says the turn was not saved.
func (s Store) Append(id string, msgs ...model.Message) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	data, err := jsonLines(msgs)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.Path(id), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("save session %s: %w", id, err)
	}
	size := fi.Size()
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			f.Close()
			return fmt.Errorf("save session %s: %w", id, err)
		}
		if last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	if _, err := f.Write(data); err != nil {
		terr := f.Truncate(size)
		f.Close()
		if terr != nil {
			return fmt.Errorf("save session %s: %w (and cutting back the partial line failed: %v; it will be set aside when the session is next loaded)", id, err, terr)
		}
		return fmt.Errorf("save session %s: %w: this message was not saved, the session file is unchanged", id, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	var before fs.FileInfo
	if size > 0 {
		before = fi
	}
	s.indexAppend(id, before, msgs)
	return nil
}
