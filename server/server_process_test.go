package server

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// pipes is the editor's end of a child agentls's stdio.
type pipes struct {
	io.Reader
	io.WriteCloser
}

// startBinary runs `agentls serve` with a config holding one real MCP
// server marked by marker, and connects a client.
func startBinary(t *testing.T, marker string) (*testClient, *exec.Cmd, *env) {
	t.Helper()
	everything := testenv.NodeBin(t, "mcp-server-everything")
	e := newEnv(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\", %q]\n", everything, marker))
	c, cmd := startServe(t, e)
	c.initialize(e.root, caps(true, false, false))
	c.waitState("everything", "connected")
	return c, cmd, e
}

// startServe runs `agentls serve` for e and connects a client, not yet
// initialized.
func startServe(t *testing.T, e *env) (*testClient, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(testenv.Agentls(t), "serve")
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+e.config, "XDG_STATE_HOME="+e.state)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := connect(t, pipes{stdout, stdin})
	go func() {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		c.code <- code
	}()
	return c, cmd
}

func TestNoProcessSurvivesTheServer(t *testing.T) {
	tests := []struct {
		name     string
		end      func(c *testClient, cmd *exec.Cmd)
		wantCode int
	}{
		{"shutdown then exit: exit code 0", func(c *testClient, _ *exec.Cmd) {
			c.mustCall("shutdown", nil, nil)
			c.notify("exit", nil)
		}, 0},
		{"stdin EOF", func(c *testClient, _ *exec.Cmd) { c.conn.Close() }, 0},
		{"SIGTERM while a task waits for approval", func(c *testClient, cmd *exec.Cmd) {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "everything-proc-marker")
			c, cmd, e := startBinary(t, marker)
			c.setAnswer(c.never)
			e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "everything__echo", Input: `{"message":"x"}`}}})
			res, errc := c.runAsync(map[string]any{"prompt": "echo"})
			c.waitFor("the approval request", method("agent/requestApproval"))
			if len(testenv.ProcessesMatching(marker)) == 0 {
				t.Fatal("the MCP server is not running")
			}
			tt.end(c, cmd)
			// The task ends cancelled and its reply still reaches the editor.
			if r := c.await(res, errc); r.StopReason != "cancelled" {
				t.Errorf("agent/run answered %+v, want cancelled", r)
			}
			select {
			case code := <-c.code:
				if code != tt.wantCode {
					t.Errorf("agentls exited with %d, want %d", code, tt.wantCode)
				}
				c.code <- code
			case <-time.After(waitLimit):
				t.Fatal("agentls did not exit")
			}
			testenv.WaitNoProcesses(t, marker, 10*time.Second)
		})
	}
}
