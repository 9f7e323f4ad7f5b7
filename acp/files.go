package acp

import (
	"context"
	"time"

	"github.com/agentls/agentls/agent/tools"
)

// readTimeout bounds one fs/read_text_file: the agent's read falls back to
// the disk rather than hang on an editor that does not answer.
const readTimeout = 10 * time.Second

// editorFiles is a session's tools.Workspace: reads see the editor's
// unsaved buffers and writes land in the editor (and its undo) when the
// client offers fs.readTextFile / fs.writeTextFile; otherwise the disk.
type editorFiles struct {
	s           *session
	read, write bool
}

func (s *session) files() editorFiles {
	c := s.a.capabilities()
	return editorFiles{s: s, read: c.FS.ReadTextFile, write: c.FS.WriteTextFile}
}

// Folders are the session's cwd, then its additional directories.
func (f editorFiles) Folders() []string { return append([]string{f.s.cwd}, f.s.dirs...) }

// OpenText asks the editor for the file's text (its buffer when open).
func (f editorFiles) OpenText(path string) (string, bool) {
	if !f.read {
		return "", false
	}
	ctx, cancel := context.WithTimeout(f.s.a.ctx, readTimeout)
	defer cancel()
	var resp readTextFileResponse
	if err := f.s.a.call(ctx, methodReadTextFile, readTextFileRequest{SessionID: f.s.id, Path: path}, &resp); err != nil {
		return "", false // not open, or not readable by the editor: the disk decides
	}
	return resp.Content, true
}

// WriteFile writes through the editor; applied is false when it cannot.
// fs/write_text_file names no version: the write tools have just read the
// file again through fs/read_text_file (the editor's buffer) and compared
// it with base, under the file's write lock, so a change the user made
// while the card was open is kept or the write refused; what ACP cannot
// guard is a keystroke between that read and this write.
func (f editorFiles) WriteFile(ctx context.Context, path string, _ tools.Snapshot, text string) (bool, error) {
	if !f.write {
		return false, nil
	}
	if err := f.s.a.call(ctx, methodWriteTextFile, writeTextFileRequest{SessionID: f.s.id, Path: path, Content: text}, nil); err != nil {
		return false, err
	}
	return true, nil
}
