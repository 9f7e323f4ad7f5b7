//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// deadPeer starts cmd with stdin a pipe the test writes (returned) and
// stdout and stderr pipes whose read ends are already closed: the peer
// that talks to agentls over stdio died with its pipes, so agentls's next
// write to either fails. The process is killed at cleanup if it is still
// there.
func deadPeer(t *testing.T, cmd *exec.Cmd) (stdin io.WriteCloser, exited <-chan *os.ProcessState) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR.Close()
	errR.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	done := make(chan *os.ProcessState, 1)
	waited := make(chan struct{})
	go func() { cmd.Wait(); done <- cmd.ProcessState; close(waited) }()
	t.Cleanup(func() {
		inW.Close()
		cmd.Process.Kill()
		<-waited
	})
	return inW, done
}

// stdioWorkspace is a temporary folder (links resolved) holding a
// workspace ws and agentls's config cfgPath with cfg in it, for a test that
// runs agentls on stdio there.
func stdioWorkspace(t *testing.T, cfg string) (tmp, ws, cfgPath string) {
	t.Helper()
	tmp, _ = filepath.EvalSymlinks(t.TempDir())
	ws = filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath = filepath.Join(tmp, "agentls-under-test.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return tmp, ws, cfgPath
}

// endedCleanly fails the test if agentls was killed by a signal: a process
// killed by SIGPIPE runs none of its deferred cleanup.
func endedCleanly(t *testing.T, st *os.ProcessState) {
	t.Helper()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Errorf("agentls was killed by %v instead of ending by itself, its cleanup not done", ws.Signal())
	}
}

func waitExit(t *testing.T, exited <-chan *os.ProcessState, what string) *os.ProcessState {
	t.Helper()
	select {
	case st := <-exited:
		return st
	case <-time.After(60 * time.Second):
		t.Fatalf("agentls did not end after %s", what)
		return nil
	}
}

// A client of `agentls acp` that died with its pipes: the replies fail,
// agentls must not be killed by SIGPIPE; it ends with its input, every MCP
// server it started ended.
func TestACPSurvivesAClientThatDiedWithItsPipes(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := testenv.Agentls(t)
	marker := filepath.Join(t.TempDir(), "everything-marker")
	tmp, ws, cfgPath := stdioWorkspace(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\", %q]\n", everything, marker))
	cmd := exec.Command(bin, "acp", "--config", cfgPath)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	stdin, exited := deadPeer(t, cmd)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	io.WriteString(stdin, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, ws)+"\n")
	stdin.Close()
	endedCleanly(t, waitExit(t, exited, "its input ended"))
	testenv.WaitNoProcesses(t, marker, endGrace)
}

// `agentls mcp serve` on stdio whose client died with its pipes: the
// reply fails, agentls ends by itself.
func TestMCPServeStdioSurvivesAClientThatDiedWithItsPipes(t *testing.T) {
	bin := testenv.Agentls(t)
	tmp, ws, cfgPath := stdioWorkspace(t, "")
	cmd := exec.Command(bin, "mcp", "serve", "--no-editor", "--config", cfgPath, "--workspace", ws)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	stdin, exited := deadPeer(t, cmd)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	stdin.Close()
	endedCleanly(t, waitExit(t, exited, "its input ended"))
	testenv.WaitNoProcesses(t, cfgPath, endGrace)
}

// `agentls mcp serve --http` whose terminal is gone (its output a closed
// pipe): printing where it listens fails, agentls serves on and, when it
// is told to end, removes its token file.
func TestMCPServeHTTPSurvivesAClosedStdout(t *testing.T) {
	bin := testenv.Agentls(t)
	tmp, ws, cfgPath := stdioWorkspace(t, "")
	state := filepath.Join(tmp, "state")
	cmd := exec.Command(bin, "mcp", "serve", "--http", "--config", cfgPath, "--workspace", ws)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	_, exited := deadPeer(t, cmd)
	tokens := filepath.Join(state, "agentls", "mcp-serve", "*")
	// The token file is written before the address is printed.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if made, _ := filepath.Glob(tokens); len(made) > 0 {
			break
		}
		select {
		case st := <-exited:
			t.Fatalf("agentls mcp serve --http ended before writing its token file: %v", st)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("agentls mcp serve --http never wrote its token file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Told to end once its token file is there: the old code, killed by
	// SIGPIPE printing its address (always after the file is written), never
	// gets to remove it.
	cmd.Process.Signal(syscall.SIGTERM) // it may be dead already: its status tells
	st := waitExit(t, exited, "SIGTERM")
	endedCleanly(t, st)
	if left, _ := filepath.Glob(tokens); len(left) > 0 {
		t.Errorf("agentls mcp serve --http ended but left its token file behind: %v", left)
	}
}

// `agentls run` whose output goes to a reader that is gone (`| head -1`
// that exited): the task runs to its end and its session is saved, not cut
// off by SIGPIPE with its turn unfinished.
func TestRunSurvivesAClosedStdout(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	e.model.Script(modeltest.Turn{Text: "The answer, line one.\nLine two.\n"})
	cmd := e.command("explain")
	_, exited := deadPeer(t, cmd)
	endedCleanly(t, waitExit(t, exited, "its task"))
	sessions, _ := filepath.Glob(filepath.Join(e.state, "agentls", "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions = %v, want the one of the run", sessions)
	}
	if left, _ := filepath.Glob(sessions[0] + ".turn"); len(left) != 0 {
		t.Errorf("the run's turn was never finished (its journal is left): %v", left)
	}
	raw, _ := os.ReadFile(sessions[0])
	if !strings.Contains(string(raw), "Line two.") {
		t.Errorf("the session does not keep the answer:\n%s", raw)
	}
}
