package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/agentls/agentls/agent/model"
)

// View says how a session's stored history is sent. The zero value
// sends it whole.
type View struct {
	// Upto: stored messages [0, Upto) are replaced by Summary. Upto is 0
	// or the index of an assistant message.
	Upto    int    `json:"upto"`
	Summary string `json:"summary,omitempty"`
	// ElideBefore: tool results in stored messages [Upto, ElideBefore) are
	// sent as stubs.
	ElideBefore int `json:"elideBefore"`
	// Prefix is a hash of the stored messages the state refers to, so a
	// history changed underneath (a repaired file) drops the state instead
	// of cutting at the wrong place.
	Prefix string `json:"prefix"`
	// Compactions counts how often this session was compacted.
	Compactions int `json:"compactions"`
}

// reach is how many stored messages the state refers to.
func (v View) Reach() int { return max(v.Upto, v.ElideBefore) }

func PrefixHash(stored []model.Message, n int) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, m := range stored[:n] {
		enc.Encode(m)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func (s Store) ViewPath(id string) string {
	return s.Path(id)[:len(s.Path(id))-len(".jsonl")] + ".view.json"
}

// loadView reads a session's view state; a missing, unreadable or stale
// one is the zero state (send everything; the loop compacts again if it
// must).
func (s Store) LoadView(id string, stored []model.Message) View {
	raw, err := os.ReadFile(s.ViewPath(id))
	if err != nil {
		return View{}
	}
	var v View
	if json.Unmarshal(raw, &v) != nil || v.Reach() > len(stored) || v.Upto < 0 || v.ElideBefore < 0 ||
		(v.Upto > 0 && stored[v.Upto].Role != "assistant") || v.Prefix != PrefixHash(stored, v.Reach()) {
		return View{Compactions: v.Compactions}
	}
	return v
}

// saveView writes a session's view state atomically.
func (s Store) SaveView(id string, v View) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("save compaction of session %s: %w", id, err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := s.ViewPath(id) + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return fmt.Errorf("save compaction of session %s: %w", id, err)
	}
	return os.Rename(tmp, s.ViewPath(id))
}

// describe says what a view keeps, for the transcript and the status line.
func (v View) Describe(stored int) string {
	var parts []string
	if v.Upto > 0 {
		parts = append(parts, fmt.Sprintf("messages 1-%d summarized, the last %d kept verbatim", v.Upto, stored-v.Upto))
	}
	if v.ElideBefore > v.Upto {
		parts = append(parts, fmt.Sprintf("tool results before message %d elided", v.ElideBefore+1))
	}
	if len(parts) == 0 {
		return "nothing elided"
	}
	return strings.Join(parts, "; ") + "; the session file keeps everything"
}
