package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/testenv"
)

// The squatter is this test binary run again (TestMain): a listener of
// another program on addr that logs every request's Authorization header.
const (
	squatEnv    = "AGENTLS_TEST_SQUAT"
	squatLogEnv = "AGENTLS_TEST_SQUAT_LOG"
)

// squat listens on addr until killed, appending each request's
// Authorization header to log; it writes log+".ready" once it listens.
func squat(addr, log string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "squatter:", err)
		return 1
	}
	if err := os.WriteFile(log+".ready", nil, 0o600); err != nil {
		return 1
	}
	f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 1
	}
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(f, "%s %s Authorization: %s\n", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		http.Error(w, "a listener that is not agentls", http.StatusServiceUnavailable)
	}))
	return 1
}

// TestAStaleEndpointNeverSendsTheTokenToAnotherListener: an editor
// session crashes (SIGKILL) and leaves its endpoint files behind, its pid
// still taken (not yet reaped; as when the pid is reused), and another
// program then listens on the port the endpoint names. An outside agent's
// `agentls mcp serve` started in the workspace must not send that
// program the session's token, nor its calls: it serves the folder's
// disk, as with no editor session, and the stale endpoint is removed.
func TestAStaleEndpointNeverSendsTheTokenToAnotherListener(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a zombie's pid and a kill without reaping are set up with Linux's semantics here")
	}
	w := newWorld(t)
	userConfig := filepath.Join(t.TempDir(), "config.toml")
	testenv.WriteFile(t, userConfig, "[serve]\nmcp = true\n")

	// The editor session: a real agentls LSP process, initialized.
	session := exec.Command(testenv.Agentls(t), "serve")
	session.Dir = w.ws
	session.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Dir(w.state), "AGENTLS_CONFIG="+userConfig)
	sessionOut, err := os.Create(filepath.Join(t.TempDir(), "session.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer sessionOut.Close()
	session.Stdout = sessionOut
	sessionErr, err := os.Create(filepath.Join(t.TempDir(), "session.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer sessionErr.Close()
	session.Stderr = sessionErr
	stdin, err := session.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			session.Process.Kill()
			session.Wait()
		}
	})
	wsURI := "file://" + w.ws
	send := func(msg string) { fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(msg), msg) }
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"workspaceFolders":[{"uri":%q,"name":"ws"}],"capabilities":{},"clientInfo":{"name":"crashing-editor"}}}`, wsURI, wsURI))
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if out, _ := os.ReadFile(sessionOut.Name()); strings.Contains(string(out), `"id":1,"result"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the editor session does not answer initialize")
		}
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	var e Endpoint
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if e, err = Find(w.state, w.ws); err == nil {
			break
		}
		if time.Now().After(deadline) {
			stderr, _ := os.ReadFile(sessionErr.Name())
			stdout, _ := os.ReadFile(sessionOut.Name())
			files, _ := filepath.Glob(filepath.Join(Dir(w.state), "*"))

			t.Fatalf("the editor session published no endpoint: %v (files: %v)\nwhat it said to the editor:\n%s\nits stderr:\n%s", err, files, stdout, stderr)
		}
	}
	if e.PID != session.Process.Pid {
		t.Fatalf("the endpoint names pid %d, the session is %d", e.PID, session.Process.Pid)
	}
	token, err := e.ReadToken()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}

	// It crashes; its parent has not reaped it yet.
	if err := session.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still accepts connections after the session was killed", u.Host)
		}
	}
	if !alive(e.PID) {
		t.Fatalf("the killed session's pid %d is free: the test needs it taken, as a reused pid is", e.PID)
	}

	// Another program takes the port.
	log := filepath.Join(t.TempDir(), "squatter.log")
	squatter := exec.Command(os.Args[0], "-test.run=^$")
	squatter.Env = append(os.Environ(), squatEnv+"="+u.Host, squatLogEnv+"="+log)
	squatter.Stderr = os.Stderr
	if err := squatter.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { squatter.Process.Kill(); squatter.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(log + ".ready"); err == nil {
			break
		}
		if time.Now().After(deadline) || squatter.ProcessState != nil {
			t.Fatalf("the squatter does not listen on %s", u.Host)
		}
	}

	// The outside agent connects through `agentls mcp serve`.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, connectErr := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: w.agentlsCmd(t, "mcp", "serve")}, nil)
	if connectErr == nil {
		defer cs.Close()
	}
	got, _ := os.ReadFile(log)
	if strings.Contains(string(got), token) {
		t.Errorf("the other program's listener received the editor session's token:\n%s", got)
	} else if len(got) > 0 {
		t.Errorf("the other program's listener received the outside agent's requests:\n%s", got)
	}
	if connectErr != nil {
		t.Fatalf("the outside agent could not connect: %v (want the folder's disk served, as with no editor session)", connectErr)
	}
	if names := toolNames(t, cs); slices.Contains(names, "list_open_documents") || !slices.Contains(names, "read_document") {
		t.Errorf("tools = %v, want the folder's disk's (no editor session is running)", names)
	}
	if _, err := os.Stat(filepath.Join(Dir(w.state), fmt.Sprintf("%d.json", e.PID))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale endpoint file is still there: %v", err)
	}
	session.Wait()
	reaped = true
}
