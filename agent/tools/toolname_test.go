package tools

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

// namingWorkspace is an editor that records, for each WriteFile, the tool
// name the ctx carried.
type namingWorkspace struct {
	*testWorkspace
	mu    sync.Mutex
	names []string
}

func (w *namingWorkspace) WriteFile(ctx context.Context, p string, base Snapshot, text string) (bool, error) {
	w.mu.Lock()
	w.names = append(w.names, ToolNameFromContext(ctx))
	w.mu.Unlock()
	return w.testWorkspace.WriteFile(ctx, p, base, text)
}

func TestWorkspaceWriteFileSeesWhichToolCalledIt(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
	}{
		{name: "write_file names itself", tool: "write_file", args: `{"path":"a.txt","content":"new\n"}`},
		{name: "edit_file names itself, not write_file", tool: "edit_file", args: `{"path":"a.txt","old_text":"old","new_text":"new"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newToolTest(t)
			writeFileT(t, filepath.Join(tt.dir, "a.txt"), "old\n")
			ws := &namingWorkspace{testWorkspace: &testWorkspace{folders: []string{tt.dir}, applies: true}}
			tt.env.Workspace = ws
			if out, isErr, _ := tt.call(tc.tool, tc.args); isErr {
				t.Fatalf("%s failed: %s", tc.tool, out)
			}
			if len(ws.names) != 1 || ws.names[0] != tc.tool {
				t.Fatalf("Workspace.WriteFile saw tool names %q, want [%q]", ws.names, tc.tool)
			}
		})
	}
}

func TestToolNameFromContextIsEmptyWhenNoToolSetIt(t *testing.T) {
	if got := ToolNameFromContext(context.Background()); got != "" {
		t.Errorf("ToolNameFromContext(a bare ctx) = %q, want empty", got)
	}
	inner := WithToolName(WithToolName(context.Background(), "write_file"), "edit_file")
	if got := ToolNameFromContext(inner); got != "edit_file" {
		t.Errorf("the innermost WithToolName must win: got %q", got)
	}
}
