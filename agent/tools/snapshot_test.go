package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/wire"
)

// The user changes the file while the write's card is open. What they
// wrote is never overwritten: edit_file makes its replacement in the
// current text when old_text still occurs there as often, and otherwise,
// like write_file, writes nothing and tells the model to read the file
// again. Before, the text computed before the card was written as it was.
func TestAChangeMadeWhileTheCardIsOpenIsKept(t *testing.T) {
	tests := []struct {
		name, tool, args string
		before, during   string // the file before the call, and as the user left it while the card was open ("" deletes it)
		want             string // the file after the call
		errPart          string // in the error result; "" for success
		okPart           string // in the success result
	}{
		{name: "edit_file is made again in the current text",
			tool: "edit_file", args: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`,
			before: "alpha\nbeta\n", during: "alpha\nbeta\nuser line\n", want: "alpha\nBETA-BY-AGENT\nuser line\n",
			okPart: "the file had changed while the edit waited for approval"},
		{name: "edit_file whose old_text the user removed writes nothing",
			tool: "edit_file", args: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`,
			before: "alpha\nbeta\n", during: "alpha\ngamma\n", want: "alpha\ngamma\n",
			errPart: "old_text now occurs 0 time(s) in it, not 1"},
		{name: "edit_file whose old_text the user duplicated writes nothing",
			tool: "edit_file", args: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`,
			before: "alpha\nbeta\n", during: "beta\nalpha\nbeta\n", want: "beta\nalpha\nbeta\n",
			errPart: "old_text now occurs 2 time(s) in it, not 1"},
		{name: "edit_file of a file deleted meanwhile creates nothing",
			tool: "edit_file", args: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`,
			before: "alpha\nbeta\n", during: "", want: "",
			errPart: "it was deleted"},
		{name: "write_file over a file changed meanwhile writes nothing",
			tool: "write_file", args: `{"path":"b.txt","content":"all new\n"}`,
			before: "alpha\nbeta\n", during: "alpha\nbeta\nuser line\n", want: "alpha\nbeta\nuser line\n",
			errPart: "its text changed in the editor or on disk"},
		{name: "write_file of a new file the user created meanwhile writes nothing",
			tool: "write_file", args: `{"path":"b.txt","content":"all new\n"}`,
			before: "", during: "the user's own file\n", want: "the user's own file\n",
			errPart: "it was created"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newToolTest(t)
			path := filepath.Join(tt.dir, "b.txt")
			if tc.before != "" {
				writeFileT(t, path, tc.before)
			}
			tt.onAsk = func(wire.Approval) {
				if tc.during == "" {
					os.Remove(path)
					return
				}
				writeFileT(t, path, tc.during)
			}
			out, isErr, _ := tt.call(tc.tool, tc.args)
			disk, err := os.ReadFile(path)
			if tc.want == "" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("b.txt = %q, %v; want it still deleted", disk, err)
			} else if tc.want != "" && string(disk) != tc.want {
				t.Errorf("b.txt = %q, want %q", disk, tc.want)
			}
			switch {
			case tc.errPart != "" && (!isErr || !strings.Contains(out, tc.errPart) || !strings.Contains(out, "nothing was written") || !strings.Contains(out, "read the file again")):
				t.Errorf("%s = %q, want an error saying %q, that nothing was written and to read the file again", tc.tool, out, tc.errPart)
			case tc.errPart == "" && (isErr || !strings.Contains(out, tc.okPart)):
				t.Errorf("%s = %q, want success saying %q", tc.tool, out, tc.okPart)
			}
		})
	}
}

// versionedWorkspace is an editor that numbers its buffers' states and,
// like an LSP client given a TextDocumentEdit, refuses an edit computed
// from a version that is no longer the buffer's.
type versionedWorkspace struct {
	folders []string
	mu      sync.Mutex
	text    map[string]string
	version map[string]int32
	// beforeApply runs as the edit arrives: the user's keystroke racing it.
	beforeApply func(w *versionedWorkspace, path string)
	refusals    int
}

func (w *versionedWorkspace) Folders() []string { return w.folders }
func (w *versionedWorkspace) OpenText(p string) (string, bool) {
	s, _, ok := w.OpenVersion(p)
	return s, ok
}
func (w *versionedWorkspace) OpenVersion(p string) (string, int32, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.text[p]
	return s, w.version[p], ok
}
func (w *versionedWorkspace) type_(p, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text[p] = text
	w.version[p]++
}
func (w *versionedWorkspace) WriteFile(_ context.Context, p string, base Snapshot, text string) (bool, error) {
	if f := w.beforeApply; f != nil {
		w.beforeApply = nil
		f(w, p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if base.Version == nil || *base.Version != w.version[p] {
		w.refusals++
		return false, ErrFileChanged
	}
	w.text[p] = text
	w.version[p]++
	return true, nil
}

// A keystroke that lands after the comparison but before the editor
// applies the edit: the editor refuses the stale version, and edit_file
// reads the buffer again and makes its replacement in the new text.
func TestAnEditTheEditorRefusesAsStaleIsMadeAgainInTheNewText(t *testing.T) {
	tt := newToolTest(t)
	path := filepath.Join(tt.dir, "b.txt")
	writeFileT(t, path, "alpha\nbeta\n")
	ws := &versionedWorkspace{folders: []string{tt.dir}, text: map[string]string{path: "alpha\nbeta\n"}, version: map[string]int32{path: 1}}
	ws.beforeApply = func(w *versionedWorkspace, p string) { w.type_(p, "alpha\nbeta\ntyped late\n") }
	tt.env.Workspace = ws
	out, isErr, _ := tt.call("edit_file", `{"path":"b.txt","old_text":"beta","new_text":"BETA"}`)
	if isErr || !strings.Contains(out, "(editor)") {
		t.Fatalf("edit_file = %q, want it made through the editor", out)
	}
	if got, _ := ws.OpenText(path); got != "alpha\nBETA\ntyped late\n" || ws.refusals != 1 {
		t.Errorf("buffer = %q after %d refusals, want the replacement made in the text with the late keystroke after one refusal", got, ws.refusals)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "alpha\nbeta\n" {
		t.Errorf("the disk changed to %q: the write belongs to the editor", disk)
	}
}

// Two tasks editing one file: each check-then-write holds the file's lock,
// so the second's replacement is made in the first's result, never over it.
func TestConcurrentEditsOfOneFileKeepEachOther(t *testing.T) {
	tt := newToolTest(t)
	path := filepath.Join(tt.dir, "c.txt")
	var want strings.Builder
	var text strings.Builder
	const n = 20
	for i := 0; i < n; i++ {
		text.WriteString("line " + string(rune('a'+i)) + "\n")
		want.WriteString(strings.ToUpper("line "+string(rune('a'+i))) + "\n")
	}
	writeFileT(t, path, text.String())
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tc := &toolTest{t: t, dir: tt.dir, env: tt.env}
			l := "line " + string(rune('a'+i)) + "\n"
			if out, isErr, _ := tc.call("edit_file", `{"path":"c.txt","old_text":"`+strings.TrimSuffix(l, "\n")+`\n","new_text":"`+strings.ToUpper(strings.TrimSuffix(l, "\n"))+`\n"}`); isErr {
				t.Errorf("edit %d = %q", i, out)
			}
		}(i)
	}
	wg.Wait()
	if disk, _ := os.ReadFile(path); string(disk) != want.String() {
		t.Errorf("c.txt = %q, want every edit kept: %q", disk, want.String())
	}
}

// The file, or a folder on its way, is replaced by a symlink while the
// card is open (`mv sub elsewhere && ln -s elsewhere sub`). The card named
// a file inside the workspace; the write must not follow the new link,
// whether it leads out of the workspace or to another file inside it, and
// the user's link stays. Before, a write whose text still matched went
// through the link into the folder outside the workspace, or renamed over
// the link.
func TestAPathReplacedByALinkWhileTheCardIsOpenIsNotWrittenThrough(t *testing.T) {
	moveSubOut := func(t *testing.T, ws, outside string) {
		mustRename(t, filepath.Join(ws, "sub"), filepath.Join(outside, "sub"))
		mustSymlink(t, filepath.Join(outside, "sub"), filepath.Join(ws, "sub"))
	}
	tests := []struct {
		name, tool, args string
		before           string                                 // sub/b.txt's text ("" for none)
		swap             func(t *testing.T, ws, outside string) // what happens while the card is open
		untouched        string                                 // the file the link leads to: it keeps before ("outside/..." is outside the workspace)
		link             string                                 // the user's link, which must stay one
	}{
		{name: "edit_file: its folder becomes a link out of the workspace",
			tool: "edit_file", args: `{"path":"sub/b.txt","old_text":"beta","new_text":"BETA"}`, before: "alpha\nbeta\n",
			swap: moveSubOut, untouched: "outside/sub/b.txt", link: "sub"},
		{name: "write_file creating a file: its folder becomes a link out of the workspace",
			tool: "write_file", args: `{"path":"sub/new.txt","content":"planted\n"}`,
			swap: moveSubOut, untouched: "outside/sub/new.txt", link: "sub"},
		{name: "edit_file: the file becomes a link to the same text elsewhere in the workspace",
			tool: "edit_file", args: `{"path":"sub/b.txt","old_text":"beta","new_text":"BETA"}`, before: "alpha\nbeta\n",
			swap: func(t *testing.T, ws, _ string) {
				mustRename(t, filepath.Join(ws, "sub", "b.txt"), filepath.Join(ws, "c.txt"))
				mustSymlink(t, filepath.Join(ws, "c.txt"), filepath.Join(ws, "sub", "b.txt"))
			},
			untouched: "c.txt", link: "sub/b.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newToolTest(t)
			outside, _ := filepath.EvalSymlinks(t.TempDir())
			if err := os.MkdirAll(filepath.Join(tt.dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.before != "" {
				writeFileT(t, filepath.Join(tt.dir, "sub", "b.txt"), tc.before)
			}
			tt.onAsk = func(wire.Approval) { tc.swap(t, tt.dir, outside) }
			out, isErr, _ := tt.call(tc.tool, tc.args)
			where := filepath.Join(tt.dir, tc.untouched)
			if rest, ok := strings.CutPrefix(tc.untouched, "outside/"); ok {
				where = filepath.Join(outside, rest)
			}
			got, err := os.ReadFile(where)
			if string(got) != tc.before || (tc.before == "" && !errors.Is(err, os.ErrNotExist)) {
				t.Errorf("%s = %q (%v) after the write, want %q: the write went through the new link", tc.untouched, got, err, tc.before)
			}
			if st, err := os.Lstat(filepath.Join(tt.dir, tc.link)); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s is no longer the user's link (%v)", tc.link, err)
			}
			if !isErr || !strings.Contains(out, "nothing was written") || !strings.Contains(out, "link") {
				t.Errorf("%s = %q, want a refusal saying the path now leads through a link and nothing was written", tc.tool, out)
			}
		})
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
