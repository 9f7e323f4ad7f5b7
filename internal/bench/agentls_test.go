package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/testenv"
)

// waitLimit bounds every wait so a broken build fails instead of hanging;
// nothing is asserted on it.
const waitLimit = 2 * time.Minute

// slowServers is TOML for n fault servers that take handshake to answer
// initialize, each with tools extra tools; marker is in their arguments.
func slowServers(faultBin string, n, tools int, handshake time.Duration, marker string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[mcp.servers.s%03d]\ncommand = %q\nargs = [\"-handshake-delay\", %q, \"-tools\", \"%d\", \"-marker\", %q]\nconnect_timeout = \"2m\"\n\n",
			i, faultBin, handshake.String(), tools, marker)
	}
	return b.String()
}

// home is one agentls process's files: a workspace, a state dir and a user
// config for a model at modelURL (an OpenAI-shaped base, without /v1).
type home struct {
	root, state, config string
}

func newHome(b *testing.B, modelURL, extra string) home {
	b.Helper()
	dir := b.TempDir()
	h := home{root: filepath.Join(dir, "ws"), state: filepath.Join(dir, "state"), config: filepath.Join(dir, "config.toml")}
	if err := os.MkdirAll(h.root, 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n%s",
		modelURL+"/v1", extra)
	if err := os.WriteFile(h.config, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	return h
}

// child is a running `agentls serve` driven over its stdin and stdout by a
// small LSP client.
type child struct {
	b      *testing.B
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	exited chan struct{}
	// notify sees every notification, on the client's read loop, with the
	// time it was read.
	notify func(method string, params json.RawMessage, at time.Time)
}

// pipes joins the child's stdout and stdin into the stream the client
// speaks over.
type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error {
	err := p.WriteCloser.Close()
	if e := p.ReadCloser.Close(); err == nil {
		err = e
	}
	return err
}

// startAgentls starts `agentls serve` for h. Its stderr goes to the
// benchmark's log only when it fails.
func startAgentls(b *testing.B, h home, notify func(string, json.RawMessage, time.Time)) *child {
	b.Helper()
	cmd := exec.Command(testenv.Agentls(b), "serve")
	cmd.Dir = h.root
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+h.config, "XDG_STATE_HOME="+h.state, "AGENTLS_TEST_KEY=test")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start agentls serve: %v", err)
	}
	c := &child{b: b, cmd: cmd, exited: make(chan struct{}), notify: notify}
	go func() { cmd.Wait(); close(c.exited) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	c.conn.Go(context.Background(), c.handle)
	b.Cleanup(func() {
		c.stop()
		if b.Failed() {
			b.Logf("agentls stderr:\n%s", cmd.Stderr.(*lockedWriter).String())
		}
	})
	return c
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// handle answers the server's requests (progress tokens yes, approvals
// never asked for here) and passes notifications on.
func (c *child) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	at := time.Now()
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		if req.Method() == "window/workDoneProgress/create" {
			return reply(ctx, nil, nil)
		}
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "bench client: no "+req.Method()))
	}
	if c.notify != nil {
		c.notify(req.Method(), req.Params(), at)
	}
	return nil
}

// call makes one request and decodes its result.
func (c *child) call(method string, params, result any) {
	c.b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		c.b.Fatalf("%s: %v", method, err)
	}
}

// initialize sends initialize (timed) and initialized.
func (c *child) initialize(root string, events bool) time.Duration {
	c.b.Helper()
	uri := (&url.URL{Scheme: "file", Path: root}).String()
	var res map[string]any
	start := time.Now()
	c.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri,
		"workspaceFolders": []map[string]string{{"uri": uri, "name": "ws"}},
		"capabilities": map[string]any{
			"window":       map[string]any{"workDoneProgress": true},
			"experimental": map[string]any{"agentls": map[string]any{"events": events}},
		},
	}, &res)
	d := time.Since(start)
	if _, ok := res["capabilities"]; !ok {
		c.b.Fatalf("initialize answered without capabilities: %v", res)
	}
	if err := c.conn.Notify(context.Background(), "initialized", map[string]any{}); err != nil {
		c.b.Fatalf("initialized: %v", err)
	}
	return d
}

// serverStates is agent/mcp/servers as name -> state.
func (c *child) serverStates() map[string]string {
	c.b.Helper()
	var res struct {
		Servers []struct{ Name, State, Error string }
	}
	c.call("agent/mcp/servers", map[string]any{}, &res)
	out := map[string]string{}
	for _, s := range res.Servers {
		out[s.Name] = s.State
	}
	return out
}

// waitConnected polls the server list until n servers are connected.
func (c *child) waitConnected(n int) {
	c.b.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		connected := 0
		states := c.serverStates()
		for _, st := range states {
			if st == "connected" {
				connected++
			}
		}
		if connected == n {
			return
		}
		if time.Now().After(deadline) {
			c.b.Fatalf("%d of %d servers connected: %v", connected, n, states)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the session as an editor does (shutdown, exit) and waits for
// the process; a process that will not go is killed and fails the run.
func (c *child) stop() {
	select {
	case <-c.exited:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c.conn.Call(ctx, "shutdown", nil, nil)
		cancel()
		c.conn.Notify(context.Background(), "exit", nil)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			c.cmd.Process.Kill()
			<-c.exited
			c.b.Errorf("agentls serve did not exit after shutdown and exit")
		}
	}
	c.conn.Close()
	<-c.conn.Done()
}

// peakRSS is a process's VmHWM (peak resident set) in MB.
func peakRSS(b *testing.B, pid int) float64 {
	b.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("read VmHWM: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				b.Fatalf("VmHWM %q: %v", rest, err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
