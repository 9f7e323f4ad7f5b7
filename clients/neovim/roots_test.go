package neovim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestOneClientPerRoot: setup{} attaches agentls to every buffer with a file,
// one client per workspace root (found by its markers), none to a buffer
// without a file.
func TestOneClientPerRoot(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": files under one root share a client, another root gets its own", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai")
			a, b := filepath.Join(w.ws, "a"), filepath.Join(w.ws, "b")
			files := []string{filepath.Join(a, "one.txt"), filepath.Join(a, "sub", "two.txt"), filepath.Join(b, "three.txt")}
			for _, d := range []string{filepath.Join(a, ".git"), filepath.Join(a, "sub"), filepath.Join(b, ".git")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range files {
				if err := os.WriteFile(f, []byte("text\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w.env = append(w.env, "AGENTLS_E2E_FILES="+strings.Join(files, ":"))
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), "-c", "luafile "+script(t, "roots.lua"))

			bufs, _ := res["buffers"].([]any)
			if len(bufs) != 3 {
				t.Fatalf("got %d attached buffers, want 3: %v", len(bufs), res)
			}
			row := func(i int) (float64, string) {
				m := bufs[i].(map[string]any)
				id, _ := m["client"].(float64)
				root, _ := m["root"].(string)
				return id, root
			}
			id0, root0 := row(0)
			id1, root1 := row(1)
			id2, root2 := row(2)
			if id0 != id1 || root0 != a || root1 != a {
				t.Errorf("files under %s: clients %v/%v roots %q/%q, want one shared client rooted there", a, id0, id1, root0, root1)
			}
			if id2 == id0 || root2 != b {
				t.Errorf("file under %s: client %v root %q, want its own client rooted there", b, id2, root2)
			}
			if n, _ := res["clients"].(float64); n != 2 {
				t.Errorf("%v agentls clients running, want 2", res["clients"])
			}
			if n, _ := res["scratch_clients"].(float64); n != 0 {
				t.Errorf("a buffer without a file got %v clients, want 0", n)
			}
		})
	}
}
