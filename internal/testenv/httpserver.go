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
	var lastOut string
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		out := &SyncBuffer{}
		cmd := exec.Command(node, script, mode)
		cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
		cmd.Stdout, cmd.Stderr = out, out
		g, err := proc.Start(cmd, proc.Options{Grace: 3 * time.Second})
		if err != nil {
			t.Fatalf("starting server-everything %s: %v", mode, err)
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
				t.Fatalf("server-everything %s did not start within 20s; output:\n%s", mode, out.String())
			case <-time.After(20 * time.Millisecond):
				if strings.Contains(out.String(), ready) {
					base := fmt.Sprintf("http://127.0.0.1:%d", port)
					t.Cleanup(stop)
					return &HTTPServer{URL: base + path, Base: base, out: out}
				}
				continue
			}
		}
		// It exited before it was ready (the port was taken meanwhile): try another.
	}
	t.Fatalf("server-everything %s would not start; last output:\n%s", mode, lastOut)
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
