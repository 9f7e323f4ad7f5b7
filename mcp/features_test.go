package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// logBuffer collects a registry's log lines.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuffer) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logBuffer) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestClientFeaturesAgainstTheReferenceServer drives the real
// server-everything over Streamable HTTP: the workspace folders are its
// roots (and a change reaches it), a call's progress notifications reach
// the call's listener, the server's log messages at the level asked for
// reach the log and the listener of a call in flight, prompts are listed
// and run, resource templates are listed beside resources.
func TestClientFeaturesAgainstTheReferenceServer(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	ws1, ws2 := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "second")
	logs := &logBuffer{}
	r := startRegistry(t, []config.Server{remoteServer("ev", everything.URL, nil)},
		Options{Roots: []string{ws1}, LogLevel: "info", Logf: logs.logf})
	info := serverInfo(t, r, "ev")
	if info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}

	// Roots.
	uri1 := (&url.URL{Scheme: "file", Path: ws1}).String()
	uri2 := (&url.URL{Scheme: "file", Path: ws2}).String()
	res := call(t, r, "ev__get-roots-list", `{}`)
	if res.IsError || !strings.Contains(res.Text, uri1) {
		t.Fatalf("get-roots-list = %+v, want %s", res, uri1)
	}
	r.SetRoots([]string{ws2})
	eventually(t, "the server to see the new root", func() bool {
		res := call(t, r, "ev__get-roots-list", `{}`)
		return !res.IsError && strings.Contains(res.Text, uri2) && !strings.Contains(res.Text, uri1)
	})
	// The server logs each roots update at info level: the level asked for.
	eventually(t, "the server's info log line", func() bool { return logs.has("mcp: ev: [info] everything-server: Roots updated") })

	// Progress.
	var mu sync.Mutex
	var progress []string
	ctx := WithListener(context.Background(), CallListener{Progress: func(p Progress) {
		mu.Lock()
		progress = append(progress, p.String())
		mu.Unlock()
	}})
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res = r.Call(cctx, "ev__trigger-long-running-operation", []byte(`{"duration":1,"steps":3}`))
	mu.Lock()
	got := strings.Join(progress, ",")
	mu.Unlock()
	if res.IsError || got != "1/3,2/3,3/3" {
		t.Errorf("long-running operation = %+v, progress %q, want 1/3,2/3,3/3", res, got)
	}

	// Log messages reach a call in flight.
	mustCallContains(t, r, "ev__toggle-simulated-logging", `{}`, "Started simulated")
	var heard []string
	ctx = WithListener(context.Background(), CallListener{Log: func(m LogMessage) {
		mu.Lock()
		heard = append(heard, m.String())
		mu.Unlock()
	}})
	cctx, cancel2 := context.WithTimeout(ctx, 60*time.Second)
	defer cancel2()
	// Simulated messages come every 5 s at random levels; 12 s at info and
	// above hears at least one almost always, the debug ones never.
	r.Call(cctx, "ev__trigger-long-running-operation", []byte(`{"duration":12,"steps":2}`))
	mu.Lock()
	for _, h := range heard {
		if !strings.HasPrefix(h, "ev: [") || strings.Contains(h, "[debug]") {
			t.Errorf("heard %q", h)
		}
	}
	if len(heard) == 0 {
		t.Errorf("no log message reached the call's listener in 12 s")
	}
	mu.Unlock()

	// Prompts.
	names := map[string]bool{}
	for _, p := range info.Prompts {
		names[p.Name] = true
	}
	if !names["simple-prompt"] || !names["args-prompt"] {
		t.Errorf("prompts = %+v", info.Prompts)
	}
	text, err := r.GetPrompt(context.Background(), "ev", "args-prompt", map[string]string{"city": "Lyon"})
	if err != nil || text != "What's weather in Lyon?" {
		t.Errorf("GetPrompt = %q, %v", text, err)
	}

	// Resource templates.
	rs, err := r.Resources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var templates, plain int
	for _, rc := range rs {
		if rc.URITemplate != "" {
			templates++
		} else if rc.URI != "" {
			plain++
		}
	}
	if templates == 0 || plain == 0 {
		t.Errorf("resources: %d templates, %d resources: %+v", templates, plain, rs)
	}
}

func mustCallContains(t testing.TB, r *Registry, name, args, want string) {
	t.Helper()
	res := call(t, r, name, args)
	if res.IsError || !strings.Contains(res.Text, want) {
		t.Fatalf("%s(%s) = %+v, want text containing %q", name, args, res, want)
	}
}

func TestPromptText(t *testing.T) {
	user := func(c sdk.Content) *sdk.PromptMessage { return &sdk.PromptMessage{Role: "user", Content: c} }
	for _, tc := range []struct {
		name string
		msgs []*sdk.PromptMessage
		want string
	}{
		{"one user message is its text", []*sdk.PromptMessage{user(&sdk.TextContent{Text: "Fix it."})}, "Fix it."},
		{"user messages apart by a blank line", []*sdk.PromptMessage{user(&sdk.TextContent{Text: "a"}), user(&sdk.TextContent{Text: "b"})}, "a\n\nb"},
		{"an embedded text resource is its text", []*sdk.PromptMessage{user(&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///x", Text: "body"}})}, "body"},
		{"an image is described", []*sdk.PromptMessage{user(&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)})},
			"[image: image/png, 2 KB; not shown: agentls passes a prompt's images to the model as this description]"},
		{"roles are named once one is not the user's", []*sdk.PromptMessage{user(&sdk.TextContent{Text: "q"}), {Role: "assistant", Content: &sdk.TextContent{Text: "a"}}}, "user: q\n\nassistant: a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := promptText(tc.msgs); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
