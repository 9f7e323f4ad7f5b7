package session

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/tools"

	"github.com/agentls/agentls/agent/model"
)

// Store keeps one workspace's conversation histories as JSONL, one
// message per line, appended as the conversation goes.
type Store struct {
	dir string // <state>/sessions/<workspace hash>
}

func NewStore(stateDir, root string) Store {
	h := sha256.Sum256([]byte(filepath.Clean(root)))
	return Store{dir: filepath.Join(stateDir, "sessions", hex.EncodeToString(h[:8]))}
}

// sessionIDPattern keeps client-supplied ids from naming paths (`../x`).
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func CheckID(id string) error {
	if !sessionIDPattern.MatchString(id) {
		return fmt.Errorf("bad sessionId %q: expected letters, digits, '-' or '_' (as agent/sessions lists them)", id)
	}
	return nil
}

// NewID is time-ordered and random: unique across processes.
func NewID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Dir is the folder of the workspace's sessions.
func (s Store) Dir() string { return s.dir }

// Path is a session's file.
func (s Store) Path(id string) string { return filepath.Join(s.dir, id+".jsonl") }

// load reads a session's history. A missing file is an empty history.
// What cannot be continued — a line that is not a message (torn by a crash,
// garbage), or messages that break the history's pairing (a tool_use whose
// result was lost) — is set aside: its original lines are appended to the
// side file next to the session, the session is rewritten without them, and
// note says so for the user. Every intact turn is kept, before and after the
// bad lines. If the side file cannot be written the session file is left as
// it is (nothing is lost) and the repaired history is used for this turn.
func (s Store) Load(id string) (msgs []model.Message, note string, err error) {
	raw, err := os.ReadFile(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read session %s: %w", id, err)
	}
	var lines [][]byte // the raw line of each message of msgs
	var aside [][]byte
	var badLines []int
	for i, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if turn := forkAt(line); turn > 0 {
			// A rewind forked the conversation: the turns from this one on
			// stay in the file, and the history continues before them.
			k := cutBeforeTurn(msgs, turn)
			msgs, lines = msgs[:k], lines[:k]
			continue
		}
		var m model.Message
		if err := json.Unmarshal(line, &m); err != nil {
			aside = append(aside, line)
			badLines = append(badLines, i+1)
			continue
		}
		msgs = append(msgs, m)
		lines = append(lines, line)
	}
	kept := keptMessages(msgs)
	if len(aside) == 0 && len(kept) == len(msgs) {
		return msgs, "", nil
	}
	out := make([]model.Message, 0, len(kept))
	for i, m := range msgs {
		if len(out) < len(kept) && kept[len(out)] == i {
			out = append(out, m)
			continue
		}
		aside = append(aside, lines[i])
	}
	side := s.AsidePath(id)
	what := fmt.Sprintf("%d line(s)", len(aside))
	if len(badLines) > 0 {
		what += fmt.Sprintf(" (unreadable: line %s)", joinInts(badLines))
	}
	if err := appendLines(side, aside); err != nil {
		return out, fmt.Sprintf("session %s has %s that cannot be continued; they could not be set aside (%v), so the session file is left as it is and this turn continues without them", id, what, err), nil
	}
	if err := s.rewrite(id, out); err != nil {
		return out, fmt.Sprintf("session %s: set aside %s in %s, but rewriting the session failed (%v); this turn continues without them", id, what, side, err), nil
	}
	return out, fmt.Sprintf("session %s: set aside %s that could not be continued (torn, garbage, or a tool call without its result) in %s; every intact turn is kept", id, what, side), nil
}

// asidePath is where load keeps the lines it takes out of a session.
func (s Store) AsidePath(id string) string { return s.Path(id) + ".set-aside" }

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// appendLines appends lines, each on its own line, to path and syncs it.
func appendLines(path string, lines [][]byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// jsonLines is msgs as JSONL: one JSON message per line.
func jsonLines(msgs []model.Message) ([]byte, error) {
	var b bytes.Buffer
	for _, m := range msgs {
		line, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// rewrite replaces a session's file atomically (a temporary file synced,
// then renamed over it).
func (s Store) rewrite(id string, msgs []model.Message) error {
	data, err := jsonLines(msgs)
	if err != nil {
		return err
	}
	tmp := s.Path(id) + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("repair session %s: %w", id, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("repair session %s: %w", id, err)
	}
	return os.Rename(tmp, s.Path(id))
}

// append adds messages to a session, one line each, in one write. It always
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

// PromptText is a user message's prompt: its first text block.
func PromptText(m model.Message) (string, bool) {
	if m.Role != "user" {
		return "", false
	}
	for _, b := range m.Content {
		if b.Type == "text" {
			return b.Text, true
		}
	}
	return "", false
}

// summarize reads a session file for its title (the first prompt's first
// line) and its turn count (user prompts), one line at a time. Only the
// first prompt's text is kept; every other line is decoded for its role
// and block types alone.
func summarize(path string) (title string, turns int) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m struct {
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
				} `json:"content"`
			}
			if json.Unmarshal(line, &m) == nil && m.Role == "user" {
				for _, b := range m.Content {
					if b.Type == "text" {
						turns++
						if title == "" {
							var full model.Message
							if json.Unmarshal(line, &full) == nil {
								if t, ok := PromptText(full); ok {
									title = tools.FirstLine(t, 80)
								}
							}
						}
						break
					}
				}
			}
		}
		if err != nil {
			return title, turns
		}
	}
}
