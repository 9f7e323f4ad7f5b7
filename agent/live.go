package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/agent/session"
)

// The workspace's live session: the session a front working on this
// workspace folder is in now (the language server's command session, the
// one Helix's code actions continue; the session of an `agentls chat`),
// so that another front started on the same workspace can take it up:
// `agentls chat` joins the session of a running language server, and a
// language server whose code actions have no session yet continues a
// running chat's. It is one small file per workspace folder in the state
// directory per process, written after each turn and removed when the
// process ends; the newest of another running process is the one taken.

// Live is a workspace's live session.
type Live struct {
	SessionID string    `json:"sessionId"`
	Front     string    `json:"front"` // "chat", or the language server's editor ("helix")
	PID       int       `json:"pid"`
	At        time.Time `json:"at"`
}

// The fronts a live session names.
const (
	FrontChat = "chat"
	FrontLSP  = "lsp"
)

// liveDir holds the workspace's live sessions, one file per process.
func (c *Core) liveDir() string {
	h := sha256.Sum256([]byte(filepath.Clean(c.root)))
	return filepath.Join(c.stateDir, "live", hex.EncodeToString(h[:8]))
}

func (c *Core) livePath() string {
	return filepath.Join(c.liveDir(), strconv.Itoa(os.Getpid())+".json")
}

// SetLive records sessionID as this workspace's live session, in this
// process (front says which kind of front it is, and editor, for a
// language server, which editor).
func (c *Core) SetLive(sessionID, front, editor string) error {
	if session.CheckID(sessionID) != nil {
		return errors.New("agent: no session to record as live")
	}
	l := Live{SessionID: sessionID, Front: front, PID: os.Getpid(), At: time.Now().UTC()}
	if editor != "" {
		l.Front = front + " " + editor
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	p := c.livePath()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp := p + ".tmp" + time.Now().Format(".150405.000000000")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	c.mu.Lock()
	c.wroteLive = true
	c.mu.Unlock()
	return nil
}

// LiveSession is the newest live session of another process still
// running on this workspace whose front starts with front, if there is
// one and its session still exists. The files of processes that ended
// without removing theirs are removed.
func (c *Core) LiveSession(front string) (Live, bool) {
	entries, err := os.ReadDir(c.liveDir())
	if err != nil {
		return Live{}, false
	}
	var best Live
	found := false
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(c.liveDir(), e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var l Live
		if json.Unmarshal(b, &l) != nil || e.Name() != strconv.Itoa(l.PID)+".json" || !processRunning(l.PID) {
			os.Remove(p)
			continue
		}
		if l.PID == os.Getpid() || !strings.HasPrefix(l.Front, front) || session.CheckID(l.SessionID) != nil {
			continue
		}
		if _, err := os.Stat(c.sessions.Path(l.SessionID)); err != nil {
			continue
		}
		if !found || l.At.After(best.At) {
			best, found = l, true
		}
	}
	return best, found
}

// dropLive removes this process's live file (Close).
func (c *Core) dropLive() {
	c.mu.Lock()
	wrote := c.wroteLive
	c.mu.Unlock()
	if wrote {
		os.Remove(c.livePath())
	}
}

// processRunning reports whether a process of that pid exists (on Windows,
// whether it could be found).
func processRunning(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true
	}
	return p.Signal(syscall.Signal(0)) == nil
}
