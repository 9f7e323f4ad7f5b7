package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agentls/agentls/wire"
)

// Control is what the user chose for a session besides its history: its
// mode and its model profile, kept beside the session file so that a
// session resumed by a later agentls (after a restart, or by another
// front) continues in them. An empty field was never chosen: the
// session takes what new sessions take.
type Control struct {
	Mode    wire.Mode `json:"mode,omitempty"`
	Profile string    `json:"profile,omitempty"`
}

// ControlPath is the file of a session's Control.
func (s Store) ControlPath(id string) string {
	return s.Path(id)[:len(s.Path(id))-len(".jsonl")] + ".control.json"
}

// LoadControl reads a session's Control; false when none was saved. A
// file that cannot be read is an error (the caller says so and uses the
// defaults).
func (s Store) LoadControl(id string) (Control, bool, error) {
	raw, err := os.ReadFile(s.ControlPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return Control{}, false, nil
	}
	if err != nil {
		return Control{}, false, fmt.Errorf("session %s: reading its mode and model: %w", id, err)
	}
	var c Control
	if err := json.Unmarshal(raw, &c); err != nil {
		return Control{}, false, fmt.Errorf("session %s: %s is not the mode and model agentls saved (%v): the defaults are used", id, s.ControlPath(id), err)
	}
	return c, true, nil
}

// SaveControl writes a session's Control atomically.
func (s Store) SaveControl(id string, c Control) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("session %s: saving its mode and model: %w", id, err)
	}
	raw, _ := json.Marshal(c)
	tmp := s.ControlPath(id) + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return fmt.Errorf("session %s: saving its mode and model: %w", id, err)
	}
	if err := os.Rename(tmp, s.ControlPath(id)); err != nil {
		return fmt.Errorf("session %s: saving its mode and model: %w", id, err)
	}
	return nil
}
