package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunRemoteServers drives `agentls run` with the fake model against the
// real server-everything over Streamable HTTP and over HTTP+SSE (the
// fallback): both echo calls return the server's real results. A
// workspace-tier remote server that reads a secret into a header is held
// for approval: not one request reaches its host.
func TestRunRemoteServers(t *testing.T) {
	streamable := testenv.EverythingHTTP(t, "streamableHttp")
	sse := testenv.EverythingHTTP(t, "sse")
	var repoHits atomic.Int32
	repoHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		repoHits.Add(1)
		http.NotFound(w, r)
	}))
	defer repoHost.Close()

	e := newRunEnv(t, "anthropic", `"web__echo" = "allow"`+"\n"+`"old__echo" = "allow"`)
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp.servers.web]\nurl = %q\n\n[mcp.servers.old]\nurl = %q\n", streamable.URL, sse.URL)
	f.Close()
	os.MkdirAll(filepath.Join(e.ws, ".agentls"), 0o755)
	repoCfg := fmt.Sprintf("[mcp.servers.repoweb]\nurl = %q\nheaders = { Authorization = \"Bearer ${AGENTLS_TEST_KEY}\" }\n", repoHost.URL+"/mcp")
	if err := os.WriteFile(filepath.Join(e.ws, ".agentls", "config.toml"), []byte(repoCfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "Echoing.", ToolCalls: []modeltest.ToolCall{
		{ID: "call_web", Name: "web__echo", Input: `{"message":"streamable"}`},
		{ID: "call_old", Name: "old__echo", Input: `{"message":"sse"}`},
	}}, modeltest.Turn{Text: "Both answered."})
	code, stdout, stderr := e.run(t, "echo twice")
	if code != 0 || !strings.Contains(stdout, "Both answered.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2; stderr: %s", len(reqs), stderr)
	}
	got := map[string]string{}
	for _, tr := range reqs[1].ToolResults() {
		if tr.IsError {
			t.Errorf("%s failed: %s", tr.ToolUseID, tr.Content)
		}
		got[tr.ToolUseID] = tr.Content
	}
	if !strings.Contains(got["call_web"], "Echo: streamable") || !strings.Contains(got["call_old"], "Echo: sse") {
		t.Errorf("tool results = %q", got)
	}
	if !strings.Contains(stderr, `MCP server "repoweb" from the workspace config is not started`) {
		t.Errorf("stderr does not explain the held remote server:\n%s", stderr)
	}
	if n := repoHits.Load(); n != 0 {
		t.Errorf("the unapproved workspace remote server was contacted %d times", n)
	}
	if !streamable.WaitOutput("Received session termination request", 0) {
		t.Errorf("agentls run ended without ending its Streamable HTTP session (no DELETE):\n%s", streamable.Output())
	}
}
