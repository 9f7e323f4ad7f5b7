package server

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedReader is an editor that can stop reading its stdin: while paused,
// Read waits, so the server's writes to the pipe block.
type gatedReader struct {
	r  io.Reader
	mu sync.Mutex // held while paused
}

func (g *gatedReader) Read(p []byte) (int, error) {
	g.mu.Lock()
	//lint:ignore SA2001 the lock is the pause: taking it only waits one out
	g.mu.Unlock()
	return g.r.Read(p)
}

// pipeEnd is one side of two io.Pipes.
type pipeEnd struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeEnd) Close() error {
	for _, c := range p.closers {
		_ = c.Close()
	}
	return nil
}

// The registry calls Logf while holding its lock and OnChange from its own
// goroutines: an editor that stops reading must never stall it. The
// callbacks queue (bounded, dropping with a count) and return at once.
func TestRegistryCallbacksDoNotWaitForAClientThatStoppedReading(t *testing.T) {
	e := newEnv(t, "")
	toSrvR, toSrvW := io.Pipe()
	toCliR, toCliW := io.Pipe()
	gate := &gatedReader{r: toCliR}
	s := New(Options{Version: "test", UserConfig: e.config, StateDir: e.state, Logf: t.Logf})
	c := connect(t, pipeEnd{Reader: gate, Writer: toSrvW, closers: []io.Closer{toSrvW, toCliR}})
	c.server = s
	go func() {
		c.code <- s.Serve(context.Background(), pipeEnd{Reader: toSrvR, Writer: toCliW, closers: []io.Closer{toSrvR, toCliW}})
	}()
	c.initialize(e.root, caps(false, false, false))

	gate.mu.Lock()
	paused := true
	resume := func() {
		if paused {
			paused = false
			gate.mu.Unlock()
		}
	}
	t.Cleanup(resume) // runs before the client's cleanup closes the pipes

	logf, onChange := s.registryCallbacks()
	const n = 4 * logQueueSize
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			logf("mcp: flood %d", i)
			if i%64 == 0 {
				onChange()
			}
		}
		logf("mcp: flood end")
	}()
	select {
	case <-done:
	case <-time.After(waitLimit):
		resume()
		<-done
		t.Fatalf("the registry's callbacks blocked while the editor was not reading")
	}

	resume()
	c.waitFor("the first queued message", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "mcp: flood 0\"")
	})
	c.waitFor("the count of dropped messages", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "log messages dropped")
	})
}
