package mcpserve

import (
	"context"
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
// PID.token and the listener's unix socket in PID.sock; all 0600 in a 0700
// folder), and removes them when it ends. Find picks the live one whose
// workspace folders hold the folder asked about, its socket answering;
// the stdio server then proxies to it over that socket (proxy.go,
// socket.go). A crashed session's files are removed once its socket
// refuses.

// Endpoint is one editor session's published listener.
type Endpoint struct {
	PID       int    `json:"pid"`
	URL       string `json:"url"`
	TokenFile string `json:"tokenFile"`
	// Socket is the listener's unix socket (socket.go), the only way
	// `agentls mcp serve` reaches the session.
	Socket  string    `json:"socket,omitempty"`
	Folders []string  `json:"folders"`
	Editor  string    `json:"editor"`
	Started time.Time `json:"started"`
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
		if json.Unmarshal(b, &e) != nil || e.PID <= 0 || !alive(e.PID) || e.Socket == "" {
			continue
		}
		if err := e.answers(); err != nil {
			if gone(err) && de.Name() == fmt.Sprintf("%d.json", e.PID) {
				// The session crashed: its port may be anyone's now.
				for _, p := range []string{path, TokenPath(stateDir, e.PID), SocketPath(stateDir, e.PID)} {
					os.Remove(p)
				}
			}
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

// answers is nil when e's socket is the user's own and a listener
// accepts on it.
func (e Endpoint) answers() error {
	if err := privateSocket(e.Socket); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := dialUnix(ctx, e.Socket)
	if err != nil {
		return err
	}
	return c.Close()
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
