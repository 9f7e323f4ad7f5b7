package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// secretRun is an `agentls run` with its own HOME, state and config (no MCP
// server), started in dir.
func secretRun(t *testing.T, m *modeltest.Server, home, dir, state, cfgPath string, extraEnv ...string) (code int, stdout, stderr string) {
	t.Helper()
	if cfgPath == "" {
		cfgPath = filepath.Join(t.TempDir(), "config.toml")
	}
	cfg := fmt.Sprintf("[model]\nprovider = \"anthropic\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n", m.URL())
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(cfg+"# KEYMATERIAL-config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testenv.Agentls(t), "run", "read the files")
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "AGENTLS_CONFIG=" + cfgPath,
		"XDG_STATE_HOME=" + state, "AGENTLS_TEST_KEY=test"}, extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("agentls run: %v", err)
	}
	return 0, out.String(), errb.String()
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// noRequestHolds fails when any model request carries s.
func noRequestHolds(t *testing.T, m *modeltest.Server, s string) {
	t.Helper()
	for i, r := range m.Requests() {
		if bytes.Contains(r.Body, []byte(s)) {
			j := bytes.Index(r.Body, []byte(s))
			t.Errorf("model request %d carries %q: ...%s...", i+1, s, r.Body[max(0, j-200):min(len(r.Body), j+100)])
		}
	}
}

// An editor or a shell started in the home directory (or in /) must not
// make the whole home the workspace: read_file asks nothing, so ~/.ssh
// would go to the model. The file tools refuse such a root and say why.
func TestFileToolsRefuseTheHomeDirectoryAndRootAsWorkspace(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(tmp, "home")
	mustWrite(t, filepath.Join(home, ".ssh", "id_ed25519"), "KEYMATERIAL-ssh\n")
	mustWrite(t, filepath.Join(home, "notes.txt"), "KEYMATERIAL-notes\n")
	for _, tc := range []struct {
		name, dir, path, says string
	}{
		{"home", home, ".ssh/id_ed25519", "your home directory"},
		{"home, absolute path", home, filepath.Join(home, "notes.txt"), "your home directory"},
		{"root", "/", strings.TrimPrefix(filepath.Join(home, "notes.txt"), "/"), "the root of the file system"},
		// agentls run in /home read .npmrc and .bash_history with no card.
		{"a parent of home", tmp, "home/notes.txt", "holds your home directory"},
		{"a parent of home, absolute path", tmp, filepath.Join(home, "notes.txt"), "holds your home directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := modeltest.New(t)
			m.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
				{ID: "r1", Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, tc.path)},
				{ID: "r2", Name: "list_directory", Input: `{}`},
			}}, modeltest.Turn{Text: "done"})
			code, stdout, stderr := secretRun(t, m, home, tc.dir, filepath.Join(tmp, "state-"+strings.ReplaceAll(tc.name, " ", "")), "")
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "file tools") || !strings.Contains(stderr, tc.says) {
				t.Errorf("stderr does not warn that the file tools refuse %s:\n%s", tc.says, stderr)
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			trs := reqs[1].ToolResults()
			if len(trs) != 2 {
				t.Fatalf("tool results = %+v", trs)
			}
			for _, tr := range trs {
				if !tr.IsError || !strings.Contains(tr.Content, tc.says) || !strings.Contains(tr.Content, "open a project folder") {
					t.Errorf("%s: result %q, want a refusal naming %s and saying to open a project folder", tr.ToolUseID, tr.Content, tc.says)
				}
			}
			noRequestHolds(t, m, "KEYMATERIAL")
		})
	}
}

// Well-known secret files ask before a read tool touches them, wherever they
// are: in the workspace, through a link in the workspace, agentls's own
// config, state and trust store. With no terminal every card is denied, so
// nothing of them reaches the model; search_text passes them over.
func TestSecretFilesAskBeforeTheyAreRead(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(tmp, "home")
	ws := filepath.Join(home, "proj")
	state := filepath.Join(ws, ".state") // agentls's state inside the workspace
	cfgPath := filepath.Join(ws, "cfg", "agentls", "config.toml")
	secrets := map[string]string{
		".ssh/id_rsa":               "KEYMATERIAL-1",
		".aws/credentials":          "KEYMATERIAL-2",
		".gnupg/private.key":        "KEYMATERIAL-3",
		".netrc":                    "KEYMATERIAL-4",
		"sub/.git-credentials":      "KEYMATERIAL-5",
		".state/agentls/trust.json": `{"KEYMATERIAL-6": 1}`,
		".state/agentls/notes":      "KEYMATERIAL-7",
	}
	for p, s := range secrets {
		mustWrite(t, filepath.Join(ws, p), s+"\n")
	}
	mustWrite(t, filepath.Join(ws, "plain.txt"), "nothing secret here\n")
	if err := os.Symlink(filepath.Join(ws, ".ssh", "id_rsa"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".aws", filepath.Join(ws, "cloud")); err != nil {
		t.Fatal(err)
	}
	var calls []modeltest.ToolCall
	paths := []string{".ssh/id_rsa", ".aws/credentials", ".gnupg/private.key", ".netrc", "sub/.git-credentials",
		".state/agentls/trust.json", ".state/agentls/notes", "notes.txt", "cloud/credentials", "cfg/agentls/config.toml"}
	for i, p := range paths {
		calls = append(calls, modeltest.ToolCall{ID: fmt.Sprintf("r%d", i), Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, p)})
	}
	calls = append(calls,
		modeltest.ToolCall{ID: "ls", Name: "list_directory", Input: `{"path":".ssh"}`},
		modeltest.ToolCall{ID: "grep", Name: "search_text", Input: `{"pattern":"KEY[M]ATERIAL|nothing secret"}`},
		modeltest.ToolCall{ID: "plain", Name: "read_file", Input: `{"path":"plain.txt"}`},
	)
	m := modeltest.New(t)
	m.Script(modeltest.Turn{ToolCalls: calls}, modeltest.Turn{Text: "done"})
	code, stdout, stderr := secretRun(t, m, home, ws, state, cfgPath)
	if code != exitUnasked {
		t.Fatalf("exit %d, want %d (cards nobody could answer)\nstdout: %s\nstderr: %s", code, exitUnasked, stdout, stderr)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2\nstderr: %s", len(reqs), stderr)
	}
	results := map[string]string{}
	for _, tr := range reqs[1].ToolResults() {
		results[tr.ToolUseID] = tr.Content
	}
	for i, p := range paths {
		if got := results[fmt.Sprintf("r%d", i)]; got != agent.NobodyAskedMessage {
			t.Errorf("read_file %s = %q, want a card (nobody to ask without a terminal)", p, got)
		}
	}
	if got := results["ls"]; got != agent.NobodyAskedMessage {
		t.Errorf("list_directory .ssh = %q, want a card", got)
	}
	if got := results["grep"]; !strings.Contains(got, "plain.txt:1: nothing secret here") || !strings.Contains(got, "usually hold secrets") {
		t.Errorf("search_text = %q, want the plain match and a note that secret files were passed over", got)
	}
	if got := results["plain"]; !strings.Contains(got, "nothing secret here") {
		t.Errorf("read_file plain.txt = %q, want its text without a card", got)
	}
	if n := strings.Count(stderr, "not a terminal: nobody could be asked"); n != len(paths)+1 {
		t.Errorf("%d cards denied on stderr, want %d:\n%s", n, len(paths)+1, stderr)
	}
	noRequestHolds(t, m, "KEYMATERIAL")
}
