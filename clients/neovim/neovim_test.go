package neovim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// nvimBound is how long one headless Neovim run may take before the test
// kills its process group: a hang is a failure, never a stuck test.
const nvimBound = 90 * time.Second

// editors are the Neovim versions the client must work on: Debian 12's 0.7.2
// (on PATH), 0.10, and 0.12 (where vim.lsp's client methods are called
// with a colon, the plugin's 0.11+ path).
var editors = []struct{ label, name string }{
	{"0.7.2", "nvim"},
	{"0.10", "nvim-0.10"},
	{"0.12", "nvim-0.12"},
}

const (
	original   = "say hello to the world\n"
	newContent = "Hello, world!\nfrom the agent\n"
	finalText  = "I rewrote greeting.txt as a greeting."
)

// world is one test's private universe: a workspace with one file, a fake
// model scripted to write it, a user config pointing at that model, and an
// agentls binary reached through a path unique to this test (the marker that
// proves no process outlives it).
type world struct {
	dir, ws, file, bin, out string
	model                   *modeltest.Server
	env                     []string
}

// writeTurns script the model to write greeting.txt, then to say so.
func writeTurns() []modeltest.Turn {
	input, _ := json.Marshal(map[string]string{"path": "greeting.txt", "content": newContent})
	return []modeltest.Turn{
		{Text: "I will rewrite the file.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(input)}}},
		{Text: finalText},
	}
}

// newWorld builds a world whose model plays turns (writeTurns when none).
func newWorld(t *testing.T, provider string, turns ...modeltest.Turn) *world {
	t.Helper()
	w := &world{dir: t.TempDir()}
	w.ws = filepath.Join(w.dir, "ws")
	w.file = filepath.Join(w.ws, "greeting.txt")
	w.out = filepath.Join(w.dir, "result.json")
	for _, d := range []string{w.ws, filepath.Join(w.dir, "bin"), filepath.Join(w.dir, "config"), filepath.Join(w.dir, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(w.file, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	w.bin = filepath.Join(w.dir, "bin", "agentls")
	if err := os.Symlink(testenv.Agentls(t), w.bin); err != nil {
		t.Fatal(err)
	}

	w.model = modeltest.New(t)
	if len(turns) == 0 {
		turns = writeTurns()
	}
	w.model.Script(turns...)
	w.writeConfig(t, provider, w.model)

	// A hermetic environment: no real keys, no user config, no user runtime.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "XDG_"), strings.HasSuffix(k, "_API_KEY"), strings.HasPrefix(k, "AGENTLS_"),
			k == "HOME", k == "VIMRUNTIME", k == "VIM", k == "MYVIMRC", k == "NVIM", k == "NVIM_LISTEN_ADDRESS":
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env,
		"HOME="+w.dir,
		"XDG_CONFIG_HOME="+filepath.Join(w.dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(w.dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(w.dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(w.dir, "cache"),
		"AGENTLS_CONFIG="+w.configPath(),
		"AGENTLS_TEST_KEY=test",
		"AGENTLS_E2E_BIN="+w.bin,
		"AGENTLS_E2E_WORKSPACE="+w.ws,
		"AGENTLS_E2E_OUT="+w.out,
		"AGENTLS_E2E_PLUGIN="+pluginDir(t),
	)
	return w
}

// writeConfig writes the user config: the model section pointing at m.
func (w *world) writeConfig(t *testing.T, provider string, m *modeltest.Server) {
	t.Helper()
	base := m.URL()
	if provider == "openai" {
		base += "/v1"
	}
	toml := fmt.Sprintf("[model]\nprovider = %q\nname = \"fake-model\"\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n", provider, base)
	if err := os.WriteFile(w.configPath(), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// configPath is the user config file (AGENTLS_CONFIG).
func (w *world) configPath() string { return filepath.Join(w.dir, "config", "config.toml") }

func pluginDir(t *testing.T) string {
	d, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func script(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runNvim runs headless Neovim in the workspace with the file open, bounded
// by nvimBound, and decodes the result file the Lua script wrote. On any
// failure it reports the script's error, Neovim's output and its LSP log.
func (w *world) runNvim(t *testing.T, nvim string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), nvimBound)
	defer cancel()
	// The marker on the command line lets WaitNoProcesses find this Neovim.
	full := append([]string{"--headless", "-i", "NONE", "-n", "--cmd", "let g:agentls_e2e_dir = '" + w.dir + "'"}, args...)
	cmd := exec.CommandContext(ctx, nvim, full...)
	cmd.Dir = w.ws
	cmd.Env = w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, so a timeout kills Neovim and the agentls it
	// started together.
	testenv.OwnGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()

	t.Cleanup(func() { testenv.WaitNoProcesses(t, w.dir, 10*time.Second) })
	var res map[string]any
	raw, readErr := os.ReadFile(w.out)
	if readErr == nil {
		if jerr := json.Unmarshal(raw, &res); jerr != nil {
			t.Errorf("result file is not JSON: %v\n%s", jerr, raw)
		}
	}
	if err != nil || readErr != nil || res["error"] != nil {
		why := "exit: " + fmt.Sprint(err)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = fmt.Sprintf("killed after %s", nvimBound)
		}
		t.Fatalf("%s %s: %s\nscript error: %v\nresult: %s\nstdout: %s\nstderr: %s\nLSP log:\n%s",
			nvim, strings.Join(full, " "), why, res["error"], raw, stdout.String(), stderr.String(), w.lspLog())
	}
	if os.Getenv("AGENTLS_E2E_SHOW") != "" {
		t.Logf("result: %s\nLSP log:\n%s", raw, w.lspLog())
	}
	return res
}

// lspLog is the tail of Neovim's LSP log (cache dir on 0.7, state dir on 0.10).
func (w *world) lspLog() string {
	var b strings.Builder
	for _, p := range []string{filepath.Join(w.dir, "cache", "nvim", "lsp.log"), filepath.Join(w.dir, "state", "nvim", "lsp.log")} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if len(data) > 6000 {
			data = data[len(data)-6000:]
		}
		b.Write(data)
	}
	return b.String()
}

// checkModelSaw asserts what the fake model received: two requests, the
// first offering write_file and carrying the prompt, the second carrying a
// successful tool result for call_1.
func (w *world) checkModelSaw(t *testing.T, prompt string) {
	t.Helper()
	var reqs []modeltest.Request
	for _, r := range w.model.ModelRequests("") {
		// A compaction's summary request (:AgentCompact) is not the task's.
		if !strings.Contains(r.System(), "You compact a coding agent's conversation") {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("model got %d task requests, want 2 (tool call turn, final turn)", len(reqs))
	}
	if !contains(reqs[0].ToolNames(), "write_file") {
		t.Errorf("first request offered tools %v, want write_file among them", reqs[0].ToolNames())
	}
	if got := reqs[0].LastUserText(); !strings.Contains(got, prompt) {
		t.Errorf("first request's user text %q does not contain the prompt %q", got, prompt)
	}
	results := reqs[1].ToolResults()
	if len(results) != 1 {
		t.Fatalf("second request carries %d tool results, want 1: %+v", len(results), results)
	}
	if r := results[0]; r.ToolUseID != "call_1" || r.IsError || !strings.Contains(r.Content, "greeting.txt") {
		t.Errorf("tool result = %+v, want a successful write of greeting.txt for call_1", r)
	}
}

// checkEditLanded asserts the buffer holds the new text while the disk still
// holds the old: the write went through the editor (workspace/applyEdit),
// where undo can take it back, not behind its back.
func (w *world) checkEditLanded(t *testing.T, res map[string]any) {
	t.Helper()
	if got := strings.Join(strs(res["lines"]), "\n") + "\n"; got != newContent {
		t.Errorf("buffer = %q, want %q", got, newContent)
	}
	disk, err := os.ReadFile(w.file)
	if err != nil {
		t.Fatal(err)
	}
	if string(disk) != original {
		t.Errorf("file on disk = %q, want it untouched (%q): the edit must land in the buffer", disk, original)
	}
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
