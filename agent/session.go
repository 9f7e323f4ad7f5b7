package agent

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
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/model"
)

// sessionStore keeps one workspace's conversation histories as JSONL, one
// message per line, appended as the conversation goes.
type sessionStore struct {
	dir string // <state>/sessions/<workspace hash>
}

func newSessionStore(stateDir, root string) sessionStore {
	h := sha256.Sum256([]byte(filepath.Clean(root)))
	return sessionStore{dir: filepath.Join(stateDir, "sessions", hex.EncodeToString(h[:8]))}
}

// sessionIDPattern keeps client-supplied ids from naming paths (`../x`).
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func checkSessionID(id string) error {
	if !sessionIDPattern.MatchString(id) {
		return fmt.Errorf("bad sessionId %q: expected letters, digits, '-' or '_' (as agent/sessions lists them)", id)
	}
	return nil
}

// newSessionID is time-ordered and random: unique across processes.
func newSessionID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (s sessionStore) path(id string) string { return filepath.Join(s.dir, id+".jsonl") }

// load reads a session's history. A missing file is an empty history. A torn
// or invalid tail (a crash mid-write) is cut off and the file rewritten, so
// what is returned is always valid to continue.
func (s sessionStore) load(id string) ([]model.Message, error) {
	raw, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	var msgs []model.Message
	torn := false
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m model.Message
		if err := json.Unmarshal(line, &m); err != nil {
			torn = true
			break
		}
		msgs = append(msgs, m)
	}
	kept := repairStored(msgs)
	if torn || len(kept) != len(msgs) {
		if err := s.rewrite(id, kept); err != nil {
			return nil, err
		}
	}
	return kept, nil
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

func (s sessionStore) rewrite(id string, msgs []model.Message) error {
	data, err := jsonLines(msgs)
	if err != nil {
		return err
	}
	tmp := s.path(id) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("repair session %s: %w", id, err)
	}
	return os.Rename(tmp, s.path(id))
}

// append adds messages to a session, one line each, in one write.
func (s sessionStore) append(id string, msgs ...model.Message) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	data, err := jsonLines(msgs)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.path(id), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("save session %s: %w", id, err)
	}
	return f.Close()
}

// list returns the stored sessions, newest first.
func (s sessionStore) list() ([]SessionInfo, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []SessionInfo{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := []SessionInfo{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || checkSessionID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		title, turns := summarize(s.path(id))
		out = append(out, SessionInfo{SessionID: id, Title: title, UpdatedAt: info.ModTime(), Turns: turns})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}

// summarize reads a session file for its title (the first prompt's first
// line) and its turn count (user prompts).
func summarize(path string) (title string, turns int) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m model.Message
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				turns++
				if title == "" {
					title = firstLine(b.Text, 80)
				}
				break
			}
		}
	}
	return title, turns
}

// firstLine is s's first non-empty line, cut to max runes.
func firstLine(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			r := []rune(l)
			if len(r) > max {
				return string(r[:max-1]) + "…"
			}
			return l
		}
	}
	return ""
}
