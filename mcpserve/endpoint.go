package mcpserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// How an `agentls mcp serve` an outside agent started finds the editor:
// every `agentls` LSP session that listens publishes its endpoint in the
// user's state folder, one file per process
// ($XDG_STATE_HOME/agentls/mcp-serve/PID.json, with the token beside it in
// PID.token; both 0600 in a 0700 folder), and removes both when it ends.
// Find picks the live one whose workspace folders hold the folder asked
// about; the stdio server then proxies to it (proxy.go).

// Endpoint is one editor session's published listener.
type Endpoint struct {
	PID       int       `json:"pid"`
	URL       string    `json:"url"`
	TokenFile string    `json:"tokenFile"`
	Folders   []string  `json:"folders"`
	Editor    string    `json:"editor"`
	Started   time.Time `json:"started"`
}

// Dir is where endpoints are published under agentls's state folder.
func Dir(stateDir string) string { return filepath.Join(stateDir, "mcp-serve") }

// TokenPath is the token file of process pid.
func TokenPath(stateDir string, pid int) string {
	return filepath.Join(Dir(stateDir), fmt.Sprintf("%d.token", pid))
}

// Publish writes e where Find looks; remove takes it away again.
func Publish(stateDir string, e Endpoint) (remove func(), err error) {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(Dir(stateDir), fmt.Sprintf("%d.json", e.PID))
	if err := writeSecret(path, string(b)+"\n"); err != nil {
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// ErrNoEditor is Find's error when no live editor session serves folder.
var ErrNoEditor = errors.New("no running agentls editor session serves this folder")

// Find is the live published endpoint whose workspace folders hold
// folder (the innermost folder wins, then the newest session). A file
// another user could have written or read is never used.
func Find(stateDir, folder string) (Endpoint, error) {
	folder = resolved(folder)
	entries, err := os.ReadDir(Dir(stateDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Endpoint{}, err
	}
	type hit struct {
		e     Endpoint
		depth int
	}
	var hits []hit
	for _, de := range entries {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		path := filepath.Join(Dir(stateDir), de.Name())
		if ownedPrivate(path) != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var e Endpoint
		if json.Unmarshal(b, &e) != nil || e.PID <= 0 || !alive(e.PID) {
			continue
		}
		for _, f := range e.Folders {
			rf := resolved(f)
			if rel, err := filepath.Rel(rf, folder); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(os.PathSeparator)) {
				hits = append(hits, hit{e, len(rf)})
				break
			}
		}
	}
	if len(hits) == 0 {
		return Endpoint{}, fmt.Errorf("%w (%s)", ErrNoEditor, folder)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].depth != hits[j].depth {
			return hits[i].depth > hits[j].depth
		}
		return hits[i].e.Started.After(hits[j].e.Started)
	})
	return hits[0].e, nil
}

// ReadToken reads e's token, refusing a file another user owns or may read.
func (e Endpoint) ReadToken() (string, error) {
	if err := ownedPrivate(e.TokenFile); err != nil {
		return "", err
	}
	b, err := os.ReadFile(e.TokenFile)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func resolved(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
