package server

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestWorkspaceFoldersAreTheServersRoots: `agentls serve`, driven by
// Microsoft's LSP client from Node, gives the real server-everything the
// workspace folder as its root; workspace/didChangeWorkspaceFolders adding
// a folder and then removing the first reaches it each time (it lists its
// roots again and logs how many), and its get-roots-list tool, called by
// the model, returns the new folder and not the old one. The agent's
// system prompt names the new folder too.
func TestWorkspaceFoldersAreTheServersRoots(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	e := newEnv(t, fmt.Sprintf("[mcp]\nlog_level = \"info\"\n\n[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n\n"+
		"[mcp.policy]\n\"everything__get-roots-list\" = \"allow\"\n", everything))
	ws2 := filepath.Join(t.TempDir(), "second")
	if err := os.MkdirAll(ws2, 0o755); err != nil {
		t.Fatal(err)
	}
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_roots", Name: "everything__get-roots-list", Input: `{}`}}},
		modeltest.Turn{Text: "the roots are listed"},
	)
	runNodeLSP(t, e, "roots_client.js",
		"WORKSPACE2="+ws2,
		"SERVER=everything",
		"PROMPT=which roots does the server see?",
		"FINAL_TEXT=the roots are listed",
	)
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	uri1 := (&url.URL{Scheme: "file", Path: e.root}).String()
	uri2 := (&url.URL{Scheme: "file", Path: ws2}).String()
	res := reqs[1].ToolResults()
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, uri2) || strings.Contains(res[0].Content, uri1) {
		t.Errorf("get-roots-list returned %+v, want %s and not %s", res, uri2, uri1)
	}
	if sys := reqs[0].System(); !strings.Contains(sys, ws2) || strings.Contains(sys, e.root+"\n") {
		t.Errorf("the system prompt does not name the folders as they are now (%s only):\n%s", ws2, sys)
	}
}

func TestApplyFolderChange(t *testing.T) {
	change := func(added, removed []string) didChangeWorkspaceFoldersParams {
		var p didChangeWorkspaceFoldersParams
		for _, a := range added {
			p.Event.Added = append(p.Event.Added, struct {
				URI string `json:"uri"`
			}{pathToURI(a)})
		}
		for _, r := range removed {
			p.Event.Removed = append(p.Event.Removed, struct {
				URI string `json:"uri"`
			}{pathToURI(r)})
		}
		return p
	}
	for _, tc := range []struct {
		name           string
		folders        []string
		added, removed []string
		want           []string
	}{
		{"an added folder goes last", []string{"/a"}, []string{"/b"}, nil, []string{"/a", "/b"}},
		{"a removed folder goes", []string{"/a", "/b"}, nil, []string{"/a"}, []string{"/b"}},
		{"a swap in one event", []string{"/a"}, []string{"/b"}, []string{"/a"}, []string{"/b"}},
		{"adding a folder already open keeps one", []string{"/a"}, []string{"/a"}, nil, []string{"/a"}},
		{"removing every folder leaves none", []string{"/a"}, nil, []string{"/a"}, nil},
		{"removing a folder not open changes nothing", []string{"/a"}, nil, []string{"/c"}, []string{"/a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := applyFolderChange(tc.folders, change(tc.added, tc.removed))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
