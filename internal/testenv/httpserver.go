package testenv

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// HTTPServer is a real MCP server listening on a loopback port.
type HTTPServer struct {
	URL  string // the MCP endpoint: http://127.0.0.1:PORT/mcp (streamableHttp) or /sse (sse)
	Base string // http://127.0.0.1:PORT
	out  *SyncBuffer
}

// Output is what the server printed so far (stdout and stderr).
func (s *HTTPServer) Output() string { return s.out.String() }

// WaitOutput waits up to d for the server to print want.
func (s *HTTPServer) WaitOutput(want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(s.Output(), want) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return strings.Contains(s.Output(), want)
}

// EverythingHTTP starts @modelcontextprotocol/server-everything from
// tools/node in mode "streamableHttp" or "sse" on a free loopback port and
// stops it (its whole process group) when the test ends.
func EverythingHTTP(t testing.TB, mode string) *HTTPServer {
	t.Helper()
	node := Tool(t, "node")
	script := filepath.Join(NodeModules(t), "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		Missing(t, "server-everything", "run scripts/setup.sh (npm ci in tools/node)")
	}
	path, ready := "/mcp", "listening on port"
	if mode == "sse" {
		path, ready = "/sse", "Server is running on port"
	}
	return startHTTPServer(t, "server-everything "+mode, path, ready, func(port int) *exec.Cmd {
		cmd := exec.Command(node, script, mode)
		cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
		return cmd
	})
}

// MCPv2Echo is tools/node/mcp-v2-echo.mjs, a server on the official
// TypeScript SDK v2 with an echo tool and a tool whose argument rides in an
// Mcp-Param-* header; it speaks MCP 2026-07-28 (and 2025-11-25 to a client
// that opens with initialize). Run it as node MCPV2ECHO stdio.
func MCPv2Echo(t testing.TB) string {
	t.Helper()
	MCPv2Server(t) // the SDK is there
	return filepath.Join(RepoRoot(), "tools", "node", "mcp-v2-echo.mjs")
}

// MCPv2EchoHTTP starts MCPv2Echo over Streamable HTTP on a free loopback
// port and stops it when the test ends.
func MCPv2EchoHTTP(t testing.TB) *HTTPServer {
	t.Helper()
	node, script := Tool(t, "node"), MCPv2Echo(t)
	return startHTTPServer(t, "mcp-v2-echo http", "/mcp", "listening on http://", func(port int) *exec.Cmd {
		return exec.Command(node, script, "http", fmt.Sprint(port))
	})
}

// MCPv2ServerHTTP starts [MCPv2Server] over Streamable HTTP on a free
// loopback port, logging the requests it gets to log, and stops it when
// the test ends.
func MCPv2ServerHTTP(t testing.TB, log string) *HTTPServer {
	t.Helper()
	node, script := Tool(t, "node"), MCPv2Server(t)
	return startHTTPServer(t, "mcp-v2-server http", "/mcp", "listening on http://", func(port int) *exec.Cmd {
		cmd := exec.Command(node, script, "http", fmt.Sprint(port))
		cmd.Env = append(os.Environ(), "MCP_V2_LOG="+log)
		return cmd
	})
}

// startHTTPServer runs the command command(port) makes on a free port until
// it prints ready, retrying on another port when it exits first (the port
// was taken meanwhile); the server's endpoint is path on that port. The
// process group is stopped when the test ends.
func startHTTPServer(t testing.TB, what, path, ready string, command func(port int) *exec.Cmd) *HTTPServer {
	t.Helper()
	var lastOut string
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		out := &SyncBuffer{}
		cmd := command(port)
		cmd.Stdout, cmd.Stderr = out, out
		g, err := proc.Start(cmd, proc.Options{Grace: 3 * time.Second})
		if err != nil {
			t.Fatalf("starting %s: %v", what, err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			g.Stop(exited)
			<-exited
			g.Release()
		}
		deadline := time.After(20 * time.Second)
		for up := false; !up; {
			select {
			case <-exited:
				lastOut = out.String()
				g.Release()
				up = true
			case <-deadline:
				stop()
				t.Fatalf("%s did not start within 20s; output:\n%s", what, out.String())
			case <-time.After(20 * time.Millisecond):
				if strings.Contains(out.String(), ready) {
					base := fmt.Sprintf("http://127.0.0.1:%d", port)
					t.Cleanup(stop)
					return &HTTPServer{URL: base + path, Base: base, out: out}
				}
				continue
			}
		}
	}
	t.Fatalf("%s would not start; last output:\n%s", what, lastOut)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// SyncBuffer is a bytes.Buffer a process writes (as its stdout or stderr)
// while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
