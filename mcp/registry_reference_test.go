package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/mcp/toolname"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// everythingServer is the npm reference server run through node directly,
// or through npx (npm exec resolving the pinned package in tools/node).
func everythingServer(t testing.TB, name string, viaNpx bool) config.Server {
	bin := testenv.NodeBin(t, "mcp-server-everything")
	s := config.Server{Name: name, Origin: config.User, Cwd: t.TempDir(),
		ConnectTimeout: 60 * time.Second, ListTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	if viaNpx {
		s.Command = testenv.Tool(t, "npx")
		s.Args = []string{"--prefix", filepath.Join(testenv.RepoRoot(), "tools", "node"), "mcp-server-everything", "stdio", newMarker(t)}
	} else {
		s.Command = testenv.Tool(t, "node")
		s.Args = []string{bin, "stdio", newMarker(t)}
	}
	return s
}

func TestReferenceServers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), newMarker(t))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := config.Server{Name: "fs", Origin: config.User, Cwd: dir, Command: testenv.Tool(t, "node"),
		Args:           []string{testenv.NodeBin(t, "mcp-server-filesystem"), dir},
		ConnectTimeout: 60 * time.Second, ListTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	node := everythingServer(t, "everything", false)
	npx := everythingServer(t, "everything_npx", true)
	r := startRegistry(t, []config.Server{fs, node, npx}, Options{Reserved: []string{"read_file", "list_directory"}})
	for _, name := range []string{"fs", "everything", "everything_npx"} {
		info := serverInfo(t, r, name)
		if info.State != Connected {
			t.Fatalf("%s: state %s: %s", name, info.State, info.Error)
		}
		if len(info.Tools) < 5 || len(info.Warnings) > 0 {
			t.Errorf("%s: %d tools, warnings %v", name, len(info.Tools), info.Warnings)
		}
		for _, tool := range info.Tools {
			if !toolname.Valid(tool.Name) || !strings.HasPrefix(tool.Name, name+"__") {
				t.Errorf("%s: tool name %q", name, tool.Name)
			}
		}
	}
	if a, b := len(serverInfo(t, r, "everything").Tools), len(serverInfo(t, r, "everything_npx").Tools); a != b {
		t.Errorf("through node %d tools, through npx %d", a, b)
	}
	mustCall(t, r, "everything__echo", `{"message":"hi"}`, "Echo: hi")
	mustCall(t, r, "everything_npx__echo", `{"message":"via npx"}`, "Echo: via npx")
	res := call(t, r, "fs__list_directory", `{"path":"`+dir+`"}`)
	if res.IsError || !strings.Contains(res.Text, "hello.txt") {
		t.Errorf("fs__list_directory = %+v", res)
	}
	res = call(t, r, "fs__read_text_file", `{"path":"/etc/hostname"}`)
	if !res.IsError || !strings.HasPrefix(res.Text, "ERROR: fs: ") {
		t.Errorf("read outside the allowed directory = %+v, want an ERROR: fs: result", res)
	}
}
