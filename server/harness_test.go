package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// waitLimit bounds every wait in these tests so a bug fails instead of
// hanging; no test asserts on timing.
const waitLimit = 60 * time.Second

// message is one server-to-client message the test client received.
type message struct {
	Method string
	Params json.RawMessage
	Call   bool // a request, not a notification
}

// answerFunc answers a server-to-client request.
type answerFunc func(method string, params json.RawMessage) (any, error)

// testClient is an LSP client over an in-process pipe to a Server.
type testClient struct {
	t      *testing.T
	conn   jsonrpc2.Conn
	server *Server
	code   chan int // Serve's exit code

	mu     sync.Mutex
	msgs   []message
	answer answerFunc
	wake   chan struct{}
	stop   chan struct{} // closed at cleanup: releases answers held back
	wg     sync.WaitGroup
}

// env is one test's files: a workspace folder, a state dir, a user config
// pointing at a fake model.
type env struct {
	root, state, config string
	model               *modeltest.Server
}

// newEnv writes a user config for the fake model plus extra TOML.
func newEnv(t *testing.T, extra string) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{root: filepath.Join(dir, "ws"), state: filepath.Join(dir, "state"), config: filepath.Join(dir, "config.toml")}
	e.model = modeltest.New(t)
	if err := os.MkdirAll(e.root, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTLS_TEST_KEY", "test")
	cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n%s\n",
		e.model.URL()+"/v1", extra)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// start runs a Server for e and connects a client to it; the client is not
// yet initialized.
func (e *env) start(t *testing.T) *testClient {
	t.Helper()
	srvEnd, cliEnd := net.Pipe()
	s := New(Options{Version: "test", UserConfig: e.config, StateDir: e.state, Logf: t.Logf})
	c := connect(t, cliEnd)
	c.server = s
	go func() { c.code <- s.Serve(context.Background(), srvEnd) }()
	return c
}

// connect makes a test client over rwc; the caller feeds c.code with the
// server's exit code.
func connect(t *testing.T, rwc io.ReadWriteCloser) *testClient {
	c := &testClient{t: t, code: make(chan int, 1), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	c.answer = defaultAnswer
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		close(c.stop)
		c.conn.Close()
		select {
		case <-c.code:
		case <-time.After(waitLimit):
			t.Errorf("Serve did not return after the client closed the connection")
		}
		<-c.conn.Done()
		c.wg.Wait()
	})
	return c
}

// defaultAnswer accepts progress tokens and knows nothing else.
func defaultAnswer(method string, _ json.RawMessage) (any, error) {
	if method == "window/workDoneProgress/create" {
		return nil, nil
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "test client: no "+method)
}

// never leaves approvals unanswered (a card nobody looks at) until the
// test ends.
func (c *testClient) never(method string, params json.RawMessage) (any, error) {
	if method == "agent/requestApproval" || method == "window/showMessageRequest" {
		<-c.stop
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "test over")
	}
	return defaultAnswer(method, params)
}

func (c *testClient) setAnswer(f answerFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer = f
}

func (c *testClient) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	_, isCall := req.(*jsonrpc2.Call)
	c.mu.Lock()
	c.msgs = append(c.msgs, message{Method: req.Method(), Params: append(json.RawMessage(nil), req.Params()...), Call: isCall})
	answer := c.answer
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	if isCall {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			res, err := answer(req.Method(), req.Params())
			_ = reply(context.Background(), res, err)
		}()
	}
	return nil
}

// call sends a request and decodes its result.
func (c *testClient) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	// jsonrpc2's Call does not watch the connection: a call pending when
	// the server goes away would wait out the whole limit.
	stop := context.AfterFunc(ctxDone(c.conn.Done()), cancel)
	defer stop()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *testClient) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// initialize sends initialize with the given capabilities and initialized.
func (c *testClient) initialize(root string, caps map[string]any) map[string]any {
	c.t.Helper()
	var res map[string]any
	c.mustCall("initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          pathToURI(root),
		"capabilities":     caps,
		"workspaceFolders": []map[string]string{{"uri": pathToURI(root), "name": "ws"}},
	}, &res)
	c.notify("initialized", map[string]any{})
	return res
}

// waitFor returns the first message (in arrival order, from index from)
// that matches, waiting for it.
func (c *testClient) waitFor(what string, match func(m message) bool) message {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		c.mu.Lock()
		for _, m := range c.msgs {
			if match(m) {
				c.mu.Unlock()
				return m
			}
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("gave up waiting for %s; got:\n%s", what, c.dump())
		}
	}
}

// messages returns the messages of one method so far.
func (c *testClient) messages(method string) []message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []message
	for _, m := range c.msgs {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

func (c *testClient) dump() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, m := range c.msgs {
		fmt.Fprintf(&b, "  %s %s\n", m.Method, m.Params)
	}
	return b.String()
}

// method matches messages of one method.
func method(name string) func(message) bool {
	return func(m message) bool { return m.Method == name }
}

// caps builds client capabilities: approvals/events for the agentls
// experimental block, showMessage for the message card.
func caps(approvals, events, showMessage bool) map[string]any {
	window := map[string]any{"workDoneProgress": true}
	if showMessage {
		window["showMessage"] = map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": false}}
	}
	return map[string]any{
		"window":       window,
		"workspace":    map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create"}}},
		"textDocument": map[string]any{"codeAction": map[string]any{"codeActionLiteralSupport": map[string]any{}}},
		"experimental": map[string]any{"agentls": map[string]any{"approvals": approvals, "events": events}},
	}
}

// runResult is agent/run's result.
type runResult struct {
	TaskID     string `json:"taskId"`
	SessionID  string `json:"sessionId"`
	StopReason string `json:"stopReason"`
	Text       string `json:"text"`
	Error      string `json:"error"`
}

// runAsync sends agent/run and returns a channel with its outcome.
func (c *testClient) runAsync(params any) (<-chan runResult, <-chan error) {
	res := make(chan runResult, 1)
	errc := make(chan error, 1)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		var r runResult
		if err := c.call("agent/run", params, &r); err != nil {
			errc <- err
			return
		}
		res <- r
	}()
	return res, errc
}

func (c *testClient) await(res <-chan runResult, errc <-chan error) runResult {
	c.t.Helper()
	select {
	case r := <-res:
		return r
	case err := <-errc:
		c.t.Fatalf("agent/run: %v", err)
	case <-time.After(waitLimit):
		c.t.Fatalf("agent/run did not answer; messages:\n%s", c.dump())
	}
	return runResult{}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ctxDone is a context cancelled when done is closed.
func ctxDone(done <-chan struct{}) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}()
	return ctx
}
