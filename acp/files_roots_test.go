package acp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestAdditionalDirectoriesAreRootsToo: session/new's additionalDirectories
// (announced in sessionCapabilities) are workspace roots beside cwd: the
// agent's file tools reach a file in one, and the real server-everything
// gets cwd and the directory as its roots (its get-roots-list, called by
// the model, returns both). A relative directory is refused.
func TestAdditionalDirectoriesAreRootsToo(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	w := newWorld(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n\n[mcp.policy]\n\"everything__get-roots-list\" = \"allow\"\n", everything))
	extra, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(extra, "notes.txt"), []byte("the notes of the second root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "r1", Name: "everything__get-roots-list", Input: `{}`},
			{ID: "r2", Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, filepath.Join(extra, "notes.txt"))},
		}},
		modeltest.Turn{Text: "both roots seen"},
	)
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, AdditionalDirectories: []string{extra}},
		{Op: "prompt", Text: "what are the roots?"},
		{Op: "new", Cwd: w.root, AdditionalDirectories: []string{"relative/dir"}},
	}})
	var init initializeResponse
	json.Unmarshal(out.Steps[0].Result, &init)
	if init.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		t.Errorf("sessionCapabilities does not announce additionalDirectories: %s", out.Steps[0].Result)
	}
	if out.Steps[2].Error != nil {
		t.Fatalf("prompt: %+v", out.Steps[2].Error)
	}
	if e := out.Steps[3].Error; e == nil || !strings.Contains(e.Message, "relative/dir") {
		t.Errorf("a relative additional directory was not refused: %+v", out.Steps[3])
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	res := reqs[1].ToolResults()
	if len(res) != 2 {
		t.Fatalf("tool results %+v, want 2", res)
	}
	for _, root := range []string{w.root, extra} {
		if uri := (&url.URL{Scheme: "file", Path: root}).String(); res[0].IsError || !strings.Contains(res[0].Content, uri) {
			t.Errorf("get-roots-list returned %+v, want %s among the roots", res[0], uri)
		}
	}
	if res[1].IsError || !strings.Contains(res[1].Content, "the notes of the second root") {
		t.Errorf("read_file in the additional directory returned %+v", res[1])
	}
}

// TestAnAdditionalDirectoryHoldingTheHomeIsRefused: an ACP editor's
// additionalDirectories naming a parent of HOME (say /home) opened the
// user's home to read_file with no card. Such a directory is refused as a
// root: the file tools do not reach it, and no MCP server gets it as a
// root (the real server-everything's get-roots-list lists only cwd).
func TestAnAdditionalDirectoryHoldingTheHomeIsRefused(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	w := newWorld(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n\n[mcp.policy]\n\"everything__get-roots-list\" = \"allow\"\n", everything))
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(parent, "me")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".bash_history"), []byte("export TOKEN=KEYMATERIAL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "r1", Name: "everything__get-roots-list", Input: `{}`},
			{ID: "r2", Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, filepath.Join(home, ".bash_history"))},
		}},
		modeltest.Turn{Text: "done"},
	)
	env := w.env()
	env["HOME"] = home
	out := w.run(plan{Env: env, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, AdditionalDirectories: []string{parent}},
		{Op: "prompt", Text: "read my history"},
	}})
	if out.Steps[2].Error != nil {
		t.Fatalf("prompt: %+v", out.Steps[2].Error)
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	res := reqs[1].ToolResults()
	if len(res) != 2 {
		t.Fatalf("tool results %+v, want 2", res)
	}
	if uri := (&url.URL{Scheme: "file", Path: parent}).String(); strings.Contains(res[0].Content, uri) {
		t.Errorf("get-roots-list returned %q: a server got the folder holding the home as a root", res[0].Content)
	}
	if !res[1].IsError {
		t.Errorf("read_file in the folder holding the home returned %+v, want it refused", res[1])
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "KEYMATERIAL") {
			t.Errorf("model request %d carries the home folder's secret", i+1)
		}
	}
}
