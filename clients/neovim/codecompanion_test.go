package neovim_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestCodeCompanion runs CodeCompanion.nvim itself (v19.22.0, vendored in
// testdata/codecompanion) as the ACP client of agentls on Neovim 0.12
// (CodeCompanion needs 0.11+), set up with the adapter snippet of the
// README as it is written: it connects, the answer streams in, the edit's
// card names the file as the workspace sees it (not a path built from the
// diff), Accept lands the edit, a follow-up gets the first answer before
// it, Reject is told to the model, and a stopped turn is cancelled.
func TestCodeCompanion(t *testing.T) {
	nvim := testenv.Editor(t, "nvim-0.12")
	write, _ := json.Marshal(map[string]string{"path": "greeting.txt", "content": newContent})
	shout, _ := json.Marshal(map[string]string{"path": "greeting.txt", "old_text": "Hello", "new_text": "HELLO"})
	w := newWorld(t, "openai",
		modeltest.Turn{Text: "I will rewrite the file.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(write)}}},
		modeltest.Turn{Text: finalText},
		modeltest.Turn{Text: "It now reads: Hello, world!"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_2", Name: "edit_file", Input: string(shout)}}},
		modeltest.Turn{Text: "I will leave it as it is."},
		modeltest.Turn{Text: "Let me think", Hang: true},
	)
	dir := t.TempDir()
	unpack(t, filepath.Join("testdata", "codecompanion", "codecompanion.nvim-v19.22.0.tar.gz"), dir)
	unpack(t, filepath.Join("testdata", "codecompanion", "plenary.nvim-b9fd5226.tar.gz"), dir) // CodeCompanion needs it
	snippet := filepath.Join(dir, "snippet.lua")
	if err := os.WriteFile(snippet, []byte(readmeCodeCompanionSnippet(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The snippet starts "agentls": the binary under test, first on PATH.
	w.env = append(w.env, "PATH="+filepath.Dir(w.bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENTLS_E2E_CODECOMPANION="+filepath.Join(dir, "codecompanion.nvim"), "AGENTLS_E2E_PLENARY="+filepath.Join(dir, "plenary.nvim"), "AGENTLS_E2E_SNIPPET="+snippet)
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(w.dir, "state", "nvim", "codecompanion.log"))
			t.Logf("CodeCompanion's log:\n%s", tail(log, 6000))
		}
	})
	res := w.runNvim(t, nvim, "-u", "NONE", "--cmd", "set rtp^="+pluginDir(t)+" noswapfile", w.file, "-c", "luafile "+script(t, "codecompanion.lua"))

	if res["adapter"] != "agentls" {
		t.Errorf("the chat's adapter is %v, want the README's agentls", res["adapter"])
	}
	card, _ := res["card_first"].(string)
	if !strings.Contains(card, "`greeting.txt`") || strings.Contains(card, "tmp/") {
		t.Errorf("the edit card does not name greeting.txt as the workspace sees it:\n%s", card)
	}
	// CodeCompanion sets the buffer's lines from the text split at each
	// newline, so the text's final newline shows as an empty last line.
	want := strings.TrimSuffix(newContent, "\n")
	if got := strings.TrimRight(strings.Join(strs(res["lines"]), "\n"), "\n"); got != want {
		t.Errorf("after Accept greeting.txt's buffer = %q, want %q", got, want)
	}
	if got := strings.TrimRight(strings.Join(strs(res["after"]), "\n"), "\n"); got != want {
		t.Errorf("after Reject greeting.txt's buffer = %q, want it unchanged (%q)", got, want)
	}
	reqs := w.model.ModelRequests("")
	if len(reqs) != 6 {
		t.Fatalf("the model got %d requests, want 6", len(reqs))
	}
	if !strings.Contains(string(reqs[2].Body), finalText) {
		t.Errorf("the follow-up was not sent with the first answer before it:\n%s", reqs[2].Body)
	}
	if r := reqs[4].ToolResults(); len(r) == 0 || r[len(r)-1].ToolUseID != "call_2" || !r[len(r)-1].IsError || !strings.Contains(r[len(r)-1].Content, "denied by the user") {
		t.Errorf("the rejected edit's result = %+v, want call_2 denied", r)
	}
	chat, _ := res["chat"].(string)
	if !strings.Contains(chat, "Let") {
		t.Errorf("the stopped turn's text is not in the chat:\n%s", chat)
	}
	t.Logf("the edit's card:\n%s", card)
}

// readmeCodeCompanionSnippet is the Lua block of clients/neovim/README.md
// after its codecompanion-adapter marker.
func readmeCodeCompanionSnippet(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- codecompanion-adapter")
	if !ok {
		t.Fatal("README.md has no codecompanion-adapter marker")
	}
	_, rest, ok = strings.Cut(rest, "```lua\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md's codecompanion-adapter marker is followed by no ```lua block")
	}
	return block
}

// unpack extracts a .tar.gz into dir (regular files and folders only).
func unpack(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("%s: entry %q leaves the folder", archive, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFrom(p, tr)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func writeFrom(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
