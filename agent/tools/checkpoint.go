package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Checkpointer records what the workspace's files were before the agent
// changes them, so that a turn can be rewound (agent/checkpoint.go). The
// write tools call Before and After around each write, under the file's
// write lock; run_command calls Command before the command runs and the
// func it returns once it ended.
type Checkpointer interface {
	// Before is path's state just before the agent writes it.
	Before(path string, before Snapshot)
	// After is what the agent left in path.
	After(path string, text string)
	// Command is called before a command runs with the workspace folders
	// it may change; done is called after it ended.
	Command(folders []string) (done func())
}

// Restore puts path back to want (text, or absent when !want.Exists),
// through the editor's buffer when it has the file open (so the editor's
// undo keeps working), else on disk through an os.Root of its workspace
// folder. It is how a rewind undoes a turn.
func Restore(ctx context.Context, ws Workspace, path string, want Snapshot) error {
	t, err := confine(ws.Folders(), path)
	if err != nil {
		return err
	}
	if !want.Exists {
		rel, err := filepath.Rel(t.Folder, t.Real)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("%s is not inside the workspace folder %s", path, t.Folder)
		}
		root, err := os.OpenRoot(t.Folder)
		if err != nil {
			return err
		}
		defer root.Close()
		if err := root.Remove(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", t.Real, err)
		}
		return nil
	}
	env := &Env{Workspace: ws}
	cur, err := readSnapshot(ws, t)
	if err != nil {
		return err
	}
	_, _, err = commitWrite(ctx, env, "rewind", t, cur, want.Text, nil)
	return err
}
