package session

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
