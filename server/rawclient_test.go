package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// rawClient drives a real `agentls serve` over its stdio with bytes the
// test writes itself, so it can send what no LSP library would.
type rawClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan rawFrame
	exited chan struct{}
	code   int

	stderrMu sync.Mutex
	stderr   bytes.Buffer
}

// rawFrame is one decoded message from agentls.
type rawFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// lockedWriter is a bytes.Buffer the process writes and the test reads.
type lockedWriter struct{ c *rawClient }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.c.stderrMu.Lock()
	defer w.c.stderrMu.Unlock()
	return w.c.stderr.Write(p)
}

// startRaw runs `agentls serve` for e.
func startRaw(t *testing.T, e *env) *rawClient {
	t.Helper()
	return startRawIn(t, e, e.root)
}

// startRawIn runs `agentls serve` for e in dir, with extra environment.
func startRawIn(t *testing.T, e *env, dir string, extraEnv ...string) *rawClient {
	t.Helper()
	c := &rawClient{t: t, frames: make(chan rawFrame, 64), exited: make(chan struct{})}
	c.cmd = exec.Command(testenv.Agentls(t), "serve")
	c.cmd.Dir = dir
	c.cmd.Env = append(append(os.Environ(), "AGENTLS_CONFIG="+e.config, "XDG_STATE_HOME="+e.state), extraEnv...)
	c.cmd.Stderr = lockedWriter{c}
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.readFrames(stdout)
	t.Cleanup(func() {
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(waitLimit):
			_ = c.cmd.Process.Kill()
			<-c.exited
			t.Errorf("agentls did not exit after its stdin closed")
		}
	})
	return c
}

// readFrames decodes agentls's stdout until it ends, then reaps the process.
func (c *rawClient) readFrames(stdout io.Reader) {
	defer func() {
		_ = c.cmd.Wait()
		c.code = c.cmd.ProcessState.ExitCode()
		close(c.exited)
	}()
	defer close(c.frames)
	in := bufio.NewReader(stdout)
	for {
		length := -1
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		var f rawFrame
		if err := json.Unmarshal(body, &f); err != nil {
			c.t.Errorf("agentls wrote a frame that is not JSON: %q", body)
			return
		}
		c.frames <- f
	}
}

// write sends bytes as they are.
func (c *rawClient) write(b string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, b); err != nil {
		c.t.Fatalf("writing to agentls: %v", err)
	}
}

// send frames body with a correct Content-Length.
func (c *rawClient) send(body string) {
	c.t.Helper()
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// next returns the next message agentls sends that matches, answering
// window/workDoneProgress/create on the way.
func (c *rawClient) next(what string, match func(rawFrame) bool) rawFrame {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				<-c.exited
				c.t.Fatalf("agentls exited (code %d) before %s; stderr:\n%s", c.code, what, c.stderrText())
			}
			if f.Method == "window/workDoneProgress/create" && len(f.ID) > 0 {
				c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, f.ID))
			}
			if match(f) {
				return f
			}
		case <-deadline:
			c.t.Fatalf("no %s from agentls; stderr:\n%s", what, c.stderrText())
		}
	}
}

// reply waits for the response with this id (as JSON text).
func (c *rawClient) reply(id string) rawFrame {
	c.t.Helper()
	return c.next("reply to id "+id, func(f rawFrame) bool { return f.Method == "" && string(f.ID) == id })
}

// initialize performs the LSP handshake with a client that answers approvals.
func (c *rawClient) initialize(root string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":%q,"capabilities":{"experimental":{"agentls":{"approvals":true}}}}}`, pathToURI(root)))
	if r := c.reply("1"); r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

// waitExit waits for the process to end and returns its exit code.
func (c *rawClient) waitExit() int {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case _, ok := <-c.frames:
			if !ok {
				<-c.exited
				return c.code
			}
		case <-deadline:
			c.t.Fatalf("agentls did not exit; stderr:\n%s", c.stderrText())
		}
	}
}

func (c *rawClient) stderrText() string {
	c.stderrMu.Lock()
	defer c.stderrMu.Unlock()
	return c.stderr.String()
}
