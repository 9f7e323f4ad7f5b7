package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"
)

// The session index is two files next to a workspace's session files:
// index.json, a snapshot written whole (to a temporary file renamed over
// it), and index.log, one record a line, appended each time a session is.
// The index is the snapshot with the log's records applied in order (the
// last record of a session wins). Saving a message is so one small append
// to a file that exists, never a new file and a rename (a new inode costs
// about a millisecond on some disks, and the whole index was written again
// for every message); a listing folds the log into the snapshot.
//
// Both are a cache checked against the session files: an entry is believed
// only while its file has the size and modification time the entry
// recorded. A record torn by a crash or a full disk is not valid JSON (each
// record starts on a line of its own, and no prefix of one parses), so it is
// skipped and its session is read again at the next listing.

// sessionIndex is the index as read: each session's title and turn count,
// and the size and modification time of the file they were read from. An
// entry whose file no longer has that size and time is stale and read
// again.
type sessionIndex struct {
	Version  int                   `json:"version"`
	Sessions map[string]indexEntry `json:"sessions"`
}

type indexEntry struct {
	Title   string `json:"title"`
	Turns   int    `json:"turns"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"modTime"` // UnixNano
}

// indexRecord is a line of index.log: one session's entry.
type indexRecord struct {
	ID string `json:"id"`
	indexEntry
}

func (e indexEntry) matches(fi fs.FileInfo) bool {
	return e.Size == fi.Size() && e.ModTime == fi.ModTime().UnixNano()
}

const indexVersion = 1

// indexLogMax is the size at which an append folds the log into the
// snapshot (a few thousand records), so reading the index stays cheap in a
// process that saves turns for days and never lists.
const indexLogMax = 512 << 10

// indexMu orders this process's reads and writes of index files; another
// process racing it at worst leaves a stale entry, which is read again.
var indexMu sync.Mutex

// indexKnown holds, per sessions folder, the entries this process last
// recorded, so an append needs not read the index back: an entry is used
// only while it matches the file as it was before the append (another
// process's append changes the size, and the index files are read then).
// Guarded by indexMu.
var indexKnown = map[string]map[string]indexEntry{}

// Forget drops a session's entry from indexKnown (the caller keeps the
// entries of the sessions in use and of a few used last); its next append
// reads the index instead.
func (s Store) Forget(id string) {
	indexMu.Lock()
	defer indexMu.Unlock()
	if known := indexKnown[s.dir]; known != nil {
		delete(known, id)
		if len(known) == 0 {
			delete(indexKnown, s.dir)
		}
	}
}

// Known is how many of the store's sessions this process keeps index
// entries of in memory (its caller bounds it).
func (s Store) Known() int {
	indexMu.Lock()
	defer indexMu.Unlock()
	return len(indexKnown[s.dir])
}

// IndexPath is the index snapshot; IndexLogPath the log of records since.
func (s Store) IndexPath() string    { return filepath.Join(s.dir, "index.json") }
func (s Store) IndexLogPath() string { return filepath.Join(s.dir, "index.log") }

// list returns the stored sessions, newest first. Titles and turn counts
// come from the index kept next to the session files, so a listing reads no
// history: only a session the index does not know, or knows at another size
// or time (written by another agentls, repaired, edited), is read, once,
// and the index is saved again.
func (s Store) List() ([]wire.SessionInfo, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []wire.SessionInfo{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	idx, logged := s.readIndex()
	pinned := map[string]bool{}
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".jsonl.pin"); ok {
			pinned[id] = true
		}
	}
	seen := map[string]bool{}
	dirty := logged
	out := []wire.SessionInfo{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || CheckID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		seen[id] = true
		ent, ok := idx.Sessions[id]
		if !ok || !ent.matches(info) {
			title, turns := summarize(s.Path(id))
			ent = indexEntry{Title: title, Turns: turns, Size: info.Size(), ModTime: info.ModTime().UnixNano()}
			idx.Sessions[id] = ent
			dirty = true
		}
		out = append(out, wire.SessionInfo{SessionID: id, Title: ent.Title, UpdatedAt: info.ModTime(), Turns: ent.Turns, Pinned: pinned[id]})
	}
	for id := range idx.Sessions {
		if !seen[id] {
			delete(idx.Sessions, id)
			dirty = true
		}
	}
	if dirty {
		s.fold(idx) // a cache: a failed write costs a rescan next time
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}

// readIndex is the snapshot with the log applied, empty when both are
// missing (a snapshot unreadable or of another version counts as empty: it
// is rebuilt); logged says the log held records.
func (s Store) readIndex() (idx sessionIndex, logged bool) {
	idx = sessionIndex{Version: indexVersion, Sessions: map[string]indexEntry{}}
	if raw, err := os.ReadFile(s.IndexPath()); err == nil {
		var got sessionIndex
		if json.Unmarshal(raw, &got) == nil && got.Version == indexVersion && got.Sessions != nil {
			idx = got
		}
	}
	raw, err := os.ReadFile(s.IndexLogPath())
	if err != nil {
		return idx, false
	}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		logged = true
		var r indexRecord
		if json.Unmarshal(line, &r) != nil || CheckID(r.ID) != nil {
			continue // torn by a crash or a full disk
		}
		idx.Sessions[r.ID] = r.indexEntry
	}
	return idx, logged
}

// fold writes idx as the snapshot, then removes the log it includes. A
// crash in between leaves records the snapshot already has, applied again
// to the same effect (or to an older entry, which is stale and read again).
func (s Store) fold(idx sessionIndex) {
	if s.writeIndex(idx) == nil {
		os.Remove(s.IndexLogPath())
	}
}

func (s Store) writeIndex(idx sessionIndex) error {
	data, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".index-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.IndexPath())
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// indexAppend records a session's entry after msgs were appended to it.
// The entry is updated from the one that matched the file as it was before
// (before; nil when the file was new or empty); when none does, the entry
// stays stale and the next listing reads the file.
func (s Store) indexAppend(id string, before fs.FileInfo, msgs []model.Message, log *heldFile) {
	after, err := os.Stat(s.Path(id))
	if err != nil {
		return
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	known := indexKnown[s.dir]
	var ent indexEntry
	if before != nil {
		var ok bool
		if ent, ok = known[id]; !ok || !ent.matches(before) {
			idx, _ := s.readIndex()
			if ent, ok = idx.Sessions[id]; !ok || !ent.matches(before) {
				return
			}
		}
	}
	for _, m := range msgs {
		if t, ok := PromptText(m); ok {
			ent.Turns++
			if ent.Title == "" {
				ent.Title = tools.FirstLine(t, 80)
			}
		}
	}
	ent.Size, ent.ModTime = after.Size(), after.ModTime().UnixNano()
	if known == nil {
		known = map[string]indexEntry{}
		indexKnown[s.dir] = known
	}
	known[id] = ent
	if logEntry(log, id, ent) >= indexLogMax {
		log.close() // fold removes it (Windows refuses to remove an open file)
		idx, _ := s.readIndex()
		s.fold(idx)
	}
}

// logEntry appends a session's entry to index.log (held by log), on a
// line of its own (a record torn before it stays a line apart), and
// returns the log's size. A failed write is left as it is: the entry is
// then stale, or torn and skipped, and read again at the next listing.
func logEntry(log *heldFile, id string, ent indexEntry) int64 {
	rec, err := json.Marshal(indexRecord{ID: id, indexEntry: ent})
	if err != nil {
		return 0
	}
	f, err := log.file()
	if err != nil {
		return 0
	}
	if _, err := f.Write(append([]byte{'\n'}, rec...)); err != nil {
		log.close()
		return 0
	}
	size, _ := f.Seek(0, io.SeekCurrent)
	return size
}
