package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// TestResourceToolsAgainstServerEverything lists and reads the resources of
// the real server-everything: text comes back as is, a blob lands in a temp
// file, an unknown server is an error naming it.
func TestResourceToolsAgainstServerEverything(t *testing.T) {
	bin := testenv.NodeBin(t, "mcp-server-everything")
	tt := newToolTest(t)
	reg := mcp.NewRegistry([]config.Server{{Name: "everything", Origin: config.User, Command: bin, Args: []string{"stdio", tt.dir}, Cwd: tt.dir}},
		mcp.Options{Reserved: BuiltinNames(), Logf: t.Logf})
	rctx, stop := context.WithCancel(context.Background())
	reg.Start(rctx)
	t.Cleanup(func() {
		reg.Close()
		stop()
		testenv.WaitNoProcesses(t, tt.dir, 10*time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reg.Wait(ctx)
	// The user allows this server's tools, so its resource reads too.
	allow := &trust.Policy{Rules: []config.PolicyRule{{Pattern: "everything__*", Action: "allow", Origin: config.User, Source: config.Source{File: "config.toml", Line: 1}}}}
	tt.env.Registry, tt.env.Policy = reg, func() *trust.Policy { return allow }
	tt.nobody = true // a card is refused: nobody is there to answer it
	call := func(name, args string) (string, bool) {
		out, isErr, _ := tt.call(name, args)
		return out, isErr
	}
	list, isErr := call("list_mcp_resources", `{}`)
	if isErr || !strings.Contains(list, "everything · demo://resource/static/document/") {
		t.Fatalf("list_mcp_resources = %q", list)
	}
	text, isErr := call("read_mcp_resource", `{"server":"everything","uri":"demo://resource/dynamic/text/1"}`)
	if isErr || !strings.HasPrefix(text, "Resource 1: This is a plaintext resource") {
		t.Errorf("text resource = %q", text)
	}
	out, isErr := call("read_mcp_resource", `{"server":"everything","uri":"demo://resource/dynamic/blob/2"}`)
	_, path, found := strings.Cut(out, " saved to ")
	if isErr || !strings.HasPrefix(out, "binary content (text/plain, ") || !found {
		t.Fatalf("blob resource = %q, want a temp file path", out)
	}
	defer os.Remove(path)
	got, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(got), "Resource 2: This is a base64 blob") || filepath.Dir(path) != filepath.Clean(os.TempDir()) {
		t.Errorf("temp file %s = %q (%v)", path, got, err)
	}
	if out, isErr := call("read_mcp_resource", `{"server":"nope","uri":"x://y"}`); !isErr || !strings.Contains(out, "nope") {
		t.Errorf("unknown server = %q", out)
	}
}

func TestResourceToolsWithoutServers(t *testing.T) {
	tt := newToolTest(t)
	if out, isErr, _ := tt.call("list_mcp_resources", `{}`); isErr || out != "no MCP servers are configured" {
		t.Errorf("list_mcp_resources = %q", out)
	}
	if out, isErr, _ := tt.call("read_mcp_resource", `{"server":"x","uri":"y"}`); !isErr || !strings.Contains(out, "no MCP servers") {
		t.Errorf("read_mcp_resource = %q", out)
	}
}
