package server

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/agent/tools"
	"go.lsp.dev/protocol"
)

// workspace is the agent's view of the editor (tools.Workspace): folders
// from initialize, unsaved buffer text, and writes through
// workspace/applyEdit so they land in the buffer and the editor's undo.
type workspace struct{ s *Server }

// Folders are the workspace roots from initialize.
func (w *workspace) Folders() []string {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return append([]string(nil), w.s.folders...)
}

// didChangeWorkspaceFoldersParams is the notification's params.
type didChangeWorkspaceFoldersParams struct {
	Event struct {
		Added, Removed []struct {
			URI string `json:"uri"`
		}
	} `json:"event"`
}

// didChangeWorkspaceFolders follows the editor's folders: the agent's
// tools work in the new set from the next call, and every MCP server gets
// them as its roots (notifications/roots/list_changed). The config stays
// the one loaded at start: a folder added later brings no workspace-tier
// servers or rules.
func (s *Server) didChangeWorkspaceFolders(p didChangeWorkspaceFoldersParams) {
	s.mu.Lock()
	folders := applyFolderChange(s.folders, p)
	s.folders = folders
	core := s.core
	s.mu.Unlock()
	s.publishMCP() // an outside agent's `agentls mcp serve` finds the new folders
	if core == nil {
		return // ensureCore reads s.folders
	}
	// The servers are told off the read loop (a notification to a remote
	// server can take a while); one at a time, each sending the newest set.
	s.goFn(func() {
		s.rootsMu.Lock()
		defer s.rootsMu.Unlock()
		s.mu.Lock()
		folders := append([]string(nil), s.folders...)
		s.mu.Unlock()
		core.SetRoots(folders)
	})
}

// applyFolderChange removes then adds folders, keeping order, no duplicates.
func applyFolderChange(folders []string, p didChangeWorkspaceFoldersParams) []string {
	gone := map[string]bool{}
	for _, f := range p.Event.Removed {
		if dir, ok := uriToPath(f.URI); ok {
			gone[filepath.Clean(dir)] = true
		}
	}
	var out []string
	have := map[string]bool{}
	for _, f := range folders {
		if !gone[filepath.Clean(f)] && !have[f] {
			out = append(out, f)
			have[f] = true
		}
	}
	for _, f := range p.Event.Added {
		if dir, ok := uriToPath(f.URI); ok && !have[dir] {
			out = append(out, dir)
			have[dir] = true
		}
	}
	return out
}

// OpenText is the open buffer's text, saved or not.
func (w *workspace) OpenText(path string) (string, bool) {
	doc, ok := w.s.docs.byPath(path)
	if !ok {
		return "", false
	}
	return doc.text, true
}

// OpenVersion is the open buffer's text and the version the editor gave
// it in didOpen or its last didChange (tools.VersionedBuffers).
func (w *workspace) OpenVersion(path string) (string, int32, bool) {
	doc, ok := w.s.docs.byPath(path)
	if !ok {
		return "", 0, false
	}
	return doc.text, doc.version, true
}

// applyEditParams is workspace/applyEdit's params: changes, or
// documentChanges holding one TextDocumentEdit.
type applyEditParams struct {
	Label string `json:"label,omitempty"`
	Edit  struct {
		Changes         map[string][]textEdit `json:"changes,omitempty"`
		DocumentChanges []any                 `json:"documentChanges,omitempty"`
	} `json:"edit"`
}

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

type textDocumentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Edits []textEdit `json:"edits"`
}

// WriteFile replaces an open buffer's text through the editor: one edit
// over the whole document. applied is false when the client cannot apply
// edits, so the agent writes the disk itself.
//
// A file the editor has not announced (no didOpen) gets no edit: the editor
// may hold it in a buffer agentls was never told about (a language it does
// not attach agentls to) with unsaved text, and an edit computed from the
// disk would replace that text. ErrNotOpen tells the agent to write the
// disk instead; the editor then sees the file changed on disk and warns
// before a save overwrites it, so nothing typed is lost silently. A new
// file goes the same way: an editor's unsaved buffer of it is as unseen.
//
// The edit was computed from base: a buffer that is no longer base gets
// no edit (ErrFileChanged), and to a client with documentChanges the edit
// is a TextDocumentEdit naming the buffer's version, so the editor refuses
// it when a keystroke came after this check. An edit the editor refused
// while the buffer moved on is ErrFileChanged too.
func (w *workspace) WriteFile(ctx context.Context, path string, base tools.Snapshot, text string) (bool, error) {
	s := w.s
	s.mu.Lock()
	info := s.client
	s.mu.Unlock()
	if !info.applyEdit || s.conn == nil {
		return false, nil
	}
	path = filepath.Clean(path)
	doc, ok := s.docs.byPath(path)
	if !ok {
		if base.Exists && base.Version != nil {
			// Computed from a buffer the editor has closed since.
			return false, fmt.Errorf("%w: the editor closed its buffer of %s", tools.ErrFileChanged, path)
		}
		return false, fmt.Errorf("%s: %w", path, tools.ErrNotOpen)
	}
	if !base.Exists || base.Version == nil || *base.Version != doc.version || base.Text != doc.text {
		return false, fmt.Errorf("%w: the editor's buffer of %s is at version %d now", tools.ErrFileChanged, path, doc.version)
	}
	var p applyEditParams
	tool := tools.ToolNameFromContext(ctx)
	if tool == "" {
		tool = "write"
	}
	p.Label = "agentls: " + tool + " " + path
	sent := doc.version // the buffer version the edit names
	edits := []textEdit{{Range: lspRange{End: endPosition(doc.text)}, NewText: text}}
	if info.versionedEdits {
		var e textDocumentEdit
		e.TextDocument.URI, e.TextDocument.Version, e.Edits = doc.uri, &sent, edits
		p.Edit.DocumentChanges = []any{e}
	} else {
		p.Edit.Changes = map[string][]textEdit{doc.uri: edits}
	}

	callCtx, cancel := mergeContexts(ctx, s.ctx)
	defer cancel()
	var res protocol.ApplyWorkspaceEditResponse
	if err := s.conn.Call(callCtx, protocol.MethodWorkspaceApplyEdit, p, &res); err != nil {
		return false, fmt.Errorf("agentls: workspace/applyEdit for %s: %w", path, err)
	}
	if !res.Applied {
		reason := res.FailureReason
		if reason == "" {
			reason = "no reason given"
		}
		// A didChange the editor sent before its answer has been read by
		// now: a buffer past the version sent is why it refused.
		if doc, ok := s.docs.byPath(path); !ok || doc.version != sent {
			return false, fmt.Errorf("%w: the editor refused the edit of version %d (%s)", tools.ErrFileChanged, sent, reason)
		}
		// Not written to disk behind the editor's back: the editor refused.
		return false, fmt.Errorf("agentls: the editor did not apply the edit to %s: %s; nothing was written (if the file changed there, read it again)", path, reason)
	}
	return true, nil
}
