package agent

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"
)

// Checkpoints: before a turn changes a file, what the file was is kept in
// <session>.jsonl.checkpoints/ (the blobs by their sha256, and a log of
// records), so that Core.Rewind can put every file a turn and the turns
// after it changed back as it was before that turn, byte for byte. The
// agent's own writes and edits are recorded as they happen; a command's
// changes are found by comparing the workspace before and after it, for
// files within the caps below (a file or a workspace over them is said in
// the record, and a rewind reports it could not restore it).
const (
	checkpointFileMax  = 4 << 20  // a file bigger than this is not kept before a command
	checkpointScanMax  = 64 << 20 // the bytes read before one command, at most
	checkpointScanList = 20000    // the files looked at before one command, at most
)

// checkpointRecord is one line of the checkpoint log.
type checkpointRecord struct {
	Turn int    `json:"turn"`
	Path string `json:"path,omitempty"`
	// Before is the file before the turn first changed it: Exists, and
	// the sha256 of its bytes (a blob) when it existed. Skipped says why it
	// could not be kept.
	Before *fileState `json:"before,omitempty"`
	// After is what agentls left in the file (a write, or the state after
	// a command), to tell a change made outside agentls since.
	After *fileState `json:"after,omitempty"`
	// Rewound marks a rewind to Turn: the records of Turn and later turns
	// before it are done with.
	Rewound bool `json:"rewound,omitempty"`
}

type fileState struct {
	Exists  bool   `json:"exists"`
	SHA     string `json:"sha256,omitempty"`
	Skipped string `json:"skipped,omitempty"`
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// turnCheckpoint is the tools.Checkpointer of one turn.
type turnCheckpoint struct {
	dir  string
	turn int
	logf func(string, ...any)
	// landed is told each file a write of the agent changed (Task.Wrote).
	landed func(path string)

	mu   sync.Mutex
	seen map[string]bool // files whose before is recorded this turn
}

func newTurnCheckpoint(s session.Store, id string, turn int, logf func(string, ...any)) *turnCheckpoint {
	return &turnCheckpoint{dir: s.CheckpointDir(id), turn: turn, logf: logf, seen: map[string]bool{}}
}

func (t *turnCheckpoint) record(r checkpointRecord, blob []byte) {
	if err := t.write(r, blob); err != nil && t.logf != nil {
		t.logf("checkpoint of %s not kept (a rewind of turn %d cannot restore it): %v", r.Path, t.turn, err)
	}
}

func (t *turnCheckpoint) write(r checkpointRecord, blob []byte) error {
	if err := os.MkdirAll(filepath.Join(t.dir, "blobs"), 0o700); err != nil {
		return err
	}
	if blob != nil {
		p := filepath.Join(t.dir, "blobs", r.Before.SHA)
		if _, err := os.Stat(p); err != nil {
			tmp := p + ".tmp"
			if err := os.WriteFile(tmp, blob, 0o600); err != nil {
				return err
			}
			if err := os.Rename(tmp, p); err != nil {
				return err
			}
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return session.AppendLine(filepath.Join(t.dir, "log.jsonl"), line)
}

// before records path's state before this turn first changed it.
func (t *turnCheckpoint) before(path string, st fileState, blob []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen[path] {
		return
	}
	t.seen[path] = true
	if !st.Exists {
		blob = nil
	}
	t.record(checkpointRecord{Turn: t.turn, Path: path, Before: &st}, blob)
}

func (t *turnCheckpoint) Before(path string, b tools.Snapshot) {
	st := fileState{Exists: b.Exists}
	if b.Exists {
		st.SHA = sha([]byte(b.Text))
	}
	t.before(path, st, []byte(b.Text))
}

func (t *turnCheckpoint) After(path string, text string) {
	if t.landed != nil {
		t.landed(path)
	}
	t.record(checkpointRecord{Turn: t.turn, Path: path, After: &fileState{Exists: true, SHA: sha([]byte(text))}}, nil)
}

// scanned is a file as a command found it.
type scanned struct {
	info    fs.FileInfo
	data    []byte // nil: over a cap
	skipped string
}

func (t *turnCheckpoint) Command(folders []string) func() {
	pre, full := scanWorkspace(folders, true)
	return func() {
		post, _ := scanWorkspace(folders, false)
		for p, a := range pre {
			b, ok := post[p]
			if ok && b.info.Size() == a.info.Size() && b.info.ModTime().Equal(a.info.ModTime()) && b.info.Mode() == a.info.Mode() {
				continue
			}
			st := fileState{Exists: true, Skipped: a.skipped}
			if a.data != nil {
				st.SHA = sha(a.data)
			}
			t.before(p, st, a.data)
			t.afterDisk(p)
		}
		for p := range post {
			if _, ok := pre[p]; ok {
				continue
			}
			st := fileState{}
			if full != "" {
				// Not in the scan before: it may have existed, over the cap.
				st = fileState{Exists: true, Skipped: full}
			}
			t.before(p, st, nil)
			t.afterDisk(p)
		}
	}
}

// afterDisk records what the file is on disk now, after a command.
func (t *turnCheckpoint) afterDisk(path string) {
	st := fileState{}
	if b, err := os.ReadFile(path); err == nil {
		st = fileState{Exists: true, SHA: sha(b)}
	}
	t.record(checkpointRecord{Turn: t.turn, Path: path, After: &st}, nil)
}

// scanWorkspace lists the regular files of the folders (git's own folder
// left out), with their bytes when read is set and they fit the caps.
// full says the scan stopped at a cap and which one.
func scanWorkspace(folders []string, read bool) (map[string]scanned, string) {
	out := map[string]scanned{}
	var total int64
	full := ""
	for _, root := range folders {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == ".git" && p != root {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if len(out) >= checkpointScanList {
				full = fmt.Sprintf("the workspace has more than %d files, the most a command's checkpoint looks at", checkpointScanList)
				return filepath.SkipAll
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			s := scanned{info: info}
			switch {
			case !read:
			case info.Size() > checkpointFileMax:
				s.skipped = fmt.Sprintf("%d bytes, over the %d a checkpoint keeps of a file a command changes", info.Size(), checkpointFileMax)
			case total+info.Size() > checkpointScanMax:
				s.skipped = fmt.Sprintf("the workspace holds more than the %d bytes a checkpoint reads before a command", checkpointScanMax)
			default:
				if b, err := os.ReadFile(p); err == nil {
					s.data = b
					total += int64(len(b))
				} else {
					s.skipped = err.Error()
				}
			}
			out[p] = s
			return nil
		})
	}
	return out, full
}

// readCheckpoints is the log's records that still count: those of a turn
// a later rewind went back before are dropped.
func readCheckpoints(dir string) ([]checkpointRecord, error) {
	f, err := os.Open(filepath.Join(dir, "log.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []checkpointRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var r checkpointRecord
		if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // a line torn by a crash: its file is not restorable
		}
		if r.Rewound {
			kept := recs[:0]
			for _, x := range recs {
				if x.Turn < r.Turn {
					kept = append(kept, x)
				}
			}
			recs = kept
			continue
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// Rewind puts back every file turn and the turns after it changed, as it
// was before turn (1 is the session's first prompt), and forks the
// conversation there: the next prompt continues from the turns before it,
// while the session file keeps the later ones. A file changed outside
// agentls since agentls last wrote it is not touched unless force is set:
// the result lists it in Changed and nothing is restored, so the front can
// ask. Files go back through ws, the editor's buffers where it has them.
func (c *Core) Rewind(ctx context.Context, sessionID string, turn int, force bool, ws tools.Workspace) (wire.RewindResult, error) {
	res := wire.RewindResult{SessionID: sessionID, Turn: turn}
	if _, err := c.SessionExists(sessionID); err != nil {
		return res, err
	}
	unlock, err := c.sessionLock(ctx, sessionID)
	if err != nil {
		return res, err
	}
	defer unlock()
	if ws == nil {
		ws = DiskWorkspace(c.root)
	}
	history, _, err := c.sessions.Load(sessionID)
	if err != nil {
		return res, err
	}
	turns := session.CountPrompts(history)
	if turns == 0 {
		return res, fmt.Errorf("bad turn %d: session %s has no turn to go back before yet", turn, sessionID)
	}
	if turn < 1 || turn > turns {
		return res, fmt.Errorf("bad turn %d: session %s has turns 1 to %d (1 is its first prompt)", turn, sessionID, turns)
	}
	dir := c.sessions.CheckpointDir(sessionID)
	recs, err := readCheckpoints(dir)
	if err != nil {
		return res, fmt.Errorf("read the checkpoints of session %s: %w", sessionID, err)
	}
	type plan struct {
		before, after *fileState
	}
	files := map[string]*plan{}
	for _, r := range recs {
		if r.Turn < turn {
			continue
		}
		p := files[r.Path]
		if p == nil {
			p = &plan{}
			files[r.Path] = p
		}
		if r.Before != nil && p.before == nil {
			p.before = r.Before
		}
		if r.After != nil {
			p.after = r.After
		}
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if now, want := currentState(ws, p), files[p].after; want != nil && *now != *want {
			res.Changed = append(res.Changed, p)
		}
	}
	if len(res.Changed) > 0 && !force {
		res.Message = fmt.Sprintf("%d file(s) changed outside agentls since turn %d wrote them; nothing was restored: rewind again with force to overwrite them", len(res.Changed), turn)
		return res, nil
	}
	for _, p := range paths {
		b := files[p].before
		switch {
		case b == nil:
			continue
		case b.Skipped != "":
			res.NotRestored = append(res.NotRestored, wire.RewindFile{Path: p, Why: "not kept: " + b.Skipped})
			continue
		}
		want := tools.Snapshot{Exists: b.Exists}
		if b.Exists {
			data, err := os.ReadFile(filepath.Join(dir, "blobs", b.SHA))
			if err == nil && sha(data) != b.SHA {
				err = errors.New("its checkpoint does not match its checksum")
			}
			if err != nil {
				res.NotRestored = append(res.NotRestored, wire.RewindFile{Path: p, Why: err.Error()})
				continue
			}
			want.Text = string(data)
		}
		if err := tools.Restore(ctx, ws, p, want); err != nil {
			res.NotRestored = append(res.NotRestored, wire.RewindFile{Path: p, Why: err.Error()})
			continue
		}
		res.Restored = append(res.Restored, p)
	}
	line, _ := json.Marshal(checkpointRecord{Turn: turn, Rewound: true})
	if err := session.AppendLine(filepath.Join(dir, "log.jsonl"), line); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.logf("session %s: the rewind is not marked in its checkpoints: %v", sessionID, err)
	}
	if err := c.sessions.Fork(sessionID, turn); err != nil {
		return res, err
	}
	res.Message = fmt.Sprintf("rewound to before turn %d: %d file(s) restored", turn, len(res.Restored))
	if n := len(res.NotRestored); n > 0 {
		res.Message += fmt.Sprintf(", %d could not be", n)
	}
	tr := session.OpenTranscript(c.stateDir, sessionID)
	tr.Note(res.Message)
	tr.Close()
	return res, nil
}

// currentState is the file as the agent would see it now.
func currentState(ws tools.Workspace, path string) *fileState {
	if text, ok := ws.OpenText(path); ok {
		return &fileState{Exists: true, SHA: sha([]byte(text))}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return &fileState{}
	}
	return &fileState{Exists: true, SHA: sha(b)}
}
