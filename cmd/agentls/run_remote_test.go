package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
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

// TestRunRemoteProgressAndLogs: through `agentls run --json` and the fake
// model, server-everything's long-running tool reports its progress as
// tool_call events (status running, message "1/2", "2/2") before the
// call's result, the server's log messages while the call runs land in
// the task's transcript, and the server sees the workspace as its root.
func TestRunRemoteProgressAndLogs(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	e := newRunEnv(t, "anthropic", `"ev__*" = "allow"`)
	// newRunEnv's config has an [mcp] table already: the log level goes in it.
	cfg, err := os.ReadFile(e.config)
	if err != nil {
		t.Fatal(err)
	}
	withLevel := strings.Replace(string(cfg), "[mcp]\n", "[mcp]\nlog_level = \"debug\"\n", 1)
	if withLevel == string(cfg) {
		t.Fatalf("newRunEnv's config has no [mcp] table:\n%s", cfg)
	}
	withLevel += fmt.Sprintf("\n[mcp.servers.ev]\nurl = %q\n", everything.URL)
	if err := os.WriteFile(e.config, []byte(withLevel), 0o600); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "Working.", ToolCalls: []modeltest.ToolCall{
		{ID: "call_roots", Name: "ev__get-roots-list", Input: `{}`},
		{ID: "call_log", Name: "ev__toggle-simulated-logging", Input: `{}`},
	}}, modeltest.Turn{Text: "Long one.", ToolCalls: []modeltest.ToolCall{
		// Simulated log messages come every 5 s: one falls within the 7 s.
		{ID: "call_long", Name: "ev__trigger-long-running-operation", Input: `{"duration":7,"steps":2}`},
	}}, modeltest.Turn{Text: "Done."})
	code, stdout, stderr := e.run(t, "--json", "run the long operation")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var progress []string
	resultSeen := false
	var sessionID string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev wire.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		sessionID = ev.SessionID
		if ev.ToolCallID != "call_long" {
			continue
		}
		switch {
		case ev.Type == "tool_call" && ev.Message != "":
			if resultSeen || ev.Status != "running" {
				t.Errorf("progress event after the result or not running: %+v", ev)
			}
			progress = append(progress, ev.Message)
		case ev.Type == "tool_result":
			resultSeen = true
			if ev.IsError || !strings.Contains(ev.Output, "Long running operation completed") {
				t.Errorf("result = %+v", ev)
			}
		}
	}
	if strings.Join(progress, ",") != "1/2,2/2" {
		t.Errorf("progress messages = %q, want 1/2,2/2", progress)
	}
	b, err := os.ReadFile(filepath.Join(e.state, "agentls", "transcripts", sessionID+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !hasSimulatedLog(string(b), "ev") {
		t.Errorf("transcript lacks a line of the server's simulated logging:\n%s", b)
	}
	wsURI := (&url.URL{Scheme: "file", Path: e.ws}).String()
	trs := e.model.Requests()[1].ToolResults()
	if len(trs) != 2 || !strings.Contains(trs[0].Content, wsURI) {
		t.Errorf("get-roots-list = %+v, want the workspace %s", trs, wsURI)
	}
}

// everythingSimulatedLogs are the messages server-everything's simulated
// logging picks from at random, by level ("alert" is spelled differently
// from the others in the server itself).
var everythingSimulatedLogs = map[string]string{
	"debug":     "Debug-level message",
	"info":      "Info-level message",
	"notice":    "Notice-level message",
	"warning":   "Warning-level message",
	"error":     "Error-level message",
	"critical":  "Critical-level message",
	"alert":     "Alert level-message",
	"emergency": "Emergency-level message",
}

// hasSimulatedLog reports whether a transcript holds a server log line of
// server-everything's simulated logging from server, its level the one its
// message names: any of them, since the server picks one at random.
func hasSimulatedLog(transcript, server string) bool {
	prefix := "> server log: " + server + ": ["
	for _, line := range strings.Split(transcript, "\n") {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		level, text, ok := strings.Cut(rest, "] ")
		if msg, known := everythingSimulatedLogs[level]; ok && known && strings.HasPrefix(text, msg) {
			return true
		}
	}
	return false
}
