//go:build unix

package mcp

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// remoteFault is the fault server serving Streamable HTTP on a loopback
// port, as a remote server (url = ...): the same tools that hang, freeze,
// die, flood and answer huge results over stdio.
type remoteFault struct {
	t      *testing.T
	flags  []string // more flags of the fault server (-stateless)
	marker string
	addr   string // HOST:PORT, kept across restarts
	cmd    *exec.Cmd
	drain  sync.WaitGroup
}

func startRemoteFault(t *testing.T, flags ...string) *remoteFault {
	f := &remoteFault{t: t, flags: flags, marker: newMarker(t), addr: "127.0.0.1:0"}
	f.start()
	t.Cleanup(func() {
		f.kill()
		testenv.WaitNoProcesses(t, f.marker, 10*time.Second)
	})
	return f
}

// start runs the server on f.addr and waits until it listens.
func (f *remoteFault) start() {
	f.t.Helper()
	cmd := exec.Command(faultBin, append([]string{"-http", f.addr, "-marker", f.marker}, f.flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		f.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.cmd = cmd
	listening := make(chan string, 1)
	f.drain.Add(1)
	go func() {
		defer f.drain.Done()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "faultserver: listening on http://"); ok {
				listening <- strings.TrimSuffix(addr, "/mcp")
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case f.addr = <-listening:
	case <-time.After(20 * time.Second):
		f.t.Fatalf("the fault server did not say where it listens")
	}
}

// kill ends the server (SIGCONT first: a frozen one cannot die stopped).
func (f *remoteFault) kill() {
	if f.cmd == nil {
		return
	}
	f.cmd.Process.Signal(syscall.SIGCONT)
	f.cmd.Process.Kill()
	f.cmd.Wait()
	f.drain.Wait()
	f.cmd = nil
}

// restart brings a killed server back on the same port.
func (f *remoteFault) restart() {
	f.t.Helper()
	f.kill()
	f.start()
}

func (f *remoteFault) server(name string, callTimeout time.Duration) config.Server {
	s := remoteServer(name, "http://"+f.addr+"/mcp", nil)
	s.CallTimeout = callTimeout
	return s
}

func TestRemoteFaultHangPastCallTimeout(t *testing.T) {
	f := startRemoteFault(t)
	r := startRegistry(t, []config.Server{f.server("f", 300*time.Millisecond)}, Options{})
	wantError(t, call(t, r, "f__hang", `{}`), "ERROR: f: ", "call_timeout (300ms)")
	mustCall(t, r, "f__echo", `{"text":"still here"}`, "still here")
}

func TestRemoteFaultFrozenServerNeverHangsTheCall(t *testing.T) {
	f := startRemoteFault(t)
	r := startRegistry(t, []config.Server{f.server("f", 300*time.Millisecond)}, Options{KillGrace: 200 * time.Millisecond})
	wantError(t, call(t, r, "f__freeze", `{}`), "ERROR: f: ", "did not answer")
	// Nothing answers now, not even a new connection's initialize: a
	// call fails within its timers instead of waiting on the server.
	if res := call(t, r, "f__echo", `{"text":"frozen"}`); !res.IsError {
		t.Fatalf("a call to the frozen server answered: %+v", res)
	}
	f.cmd.Process.Signal(syscall.SIGCONT)
	eventually(t, "the thawed server to answer again", func() bool {
		res := call(t, r, "f__echo", `{"text":"thawed"}`)
		return !res.IsError && res.Text == "thawed"
	})
}

func TestRemoteFaultKilledMidCallIsReconnectedOnUse(t *testing.T) {
	f := startRemoteFault(t)
	r := startRegistry(t, []config.Server{f.server("f", 20*time.Second)}, Options{RestartBackoff: time.Millisecond})
	died := call(t, r, "f__die", `{}`)
	wantError(t, died, "ERROR: f: ", "the connection broke during the call", "connected again on next use")
	t.Logf("killed mid-call: %s", died.Text)
	if info := serverInfo(t, r, "f"); info.State != Failed {
		t.Fatalf("state %s after the server died mid-call, want failed", info.State)
	}
	f.restart()
	eventually(t, "the restarted server to be reconnected on use", func() bool {
		res := call(t, r, "f__echo", `{"text":"back"}`)
		return !res.IsError && res.Text == "back"
	})
	if info := serverInfo(t, r, "f"); info.State != Connected {
		t.Fatalf("state %s after reconnecting, want connected", info.State)
	}
}

func TestRemoteFaultProgressFloodIsSurvived(t *testing.T) {
	f := startRemoteFault(t)
	r := startRegistry(t, []config.Server{f.server("f", 60*time.Second)}, Options{})
	var seen atomic.Int64
	ctx := WithListener(context.Background(), CallListener{Progress: func(Progress) { seen.Add(1) }})
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res := r.Call(ctx, "f__flood", []byte(`{"n":20000}`))
	if res.IsError || res.Text != "flooded" {
		t.Fatalf("flood: %+v", res)
	}
	if seen.Load() == 0 {
		t.Errorf("no progress reached the listener")
	}
	mustCall(t, r, "f__echo", `{"text":"alive"}`, "alive")
}

func TestRemoteFaultHugeResultIsCapped(t *testing.T) {
	f := startRemoteFault(t)
	r := startRegistry(t, []config.Server{f.server("f", 5*time.Minute)}, Options{ResultMaxBytes: 1000})
	res := call(t, r, "f__big", `{"bytes":20000000}`)
	if res.IsError {
		t.Fatalf("20 MB result: %s", res.Text)
	}
	if !strings.HasPrefix(res.Text, strings.Repeat("x", 1000)+"\n[result cut: ") || len(res.Text) > 1200 {
		t.Fatalf("20 MB result not capped at 1000 bytes with a marker: %d bytes", len(res.Text))
	}
	mustCall(t, r, "f__echo", `{"text":"alive"}`, "alive")
}

func TestRemoteFaultMessageOverLimitFailsOnlyThatCall(t *testing.T) {
	f := startRemoteFault(t)
	r := startRegistry(t, []config.Server{f.server("f", 60*time.Second)}, Options{MessageMaxBytes: 1 << 20})
	res := call(t, r, "f__big", `{"bytes":2000000}`)
	if !res.IsError || len(res.Text) > 2000 {
		t.Fatalf("a 2 MB message over a 1 MB limit: error %v, %d bytes", res.IsError, len(res.Text))
	}
	t.Logf("over the limit: %s", res.Text)
	eventually(t, "the server to answer a small call again", func() bool {
		res := call(t, r, "f__echo", `{"text":"alive"}`)
		return !res.IsError && res.Text == "alive"
	})
}

// TestRemoteFaultStatelessSlowToolKeepsTheServer: after a call to a
// 2026-07-28 server over Streamable HTTP timed out, the probe asks whether
// the server still answers; that revision has no ping (the server answers
// it with a 400), and a refusal is an answer: the server is kept, not
// stopped as hung. Seen failing with the server marked failed ("stopped
// answering") when only ping counted.
func TestRemoteFaultStatelessSlowToolKeepsTheServer(t *testing.T) {
	f := startRemoteFault(t, "-stateless")
	logs := &logBuffer{}
	r := startRegistry(t, []config.Server{f.server("f", 300*time.Millisecond)}, Options{Logf: logs.logf})
	if rev := serverInfo(t, r, "f").Revision; rev != "2026-07-28" {
		t.Fatalf("revision %q: this test needs a 2026-07-28 server", rev)
	}
	wantError(t, call(t, r, "f__hang", `{}`), "ERROR: f: ", "call_timeout (300ms)")
	eventually(t, "the probe's verdict", func() bool { return logs.has("mcp: f: still answers") || logs.has("stopped answering") })
	if info := serverInfo(t, r, "f"); info.State != Connected {
		t.Errorf("after a slow call: %s %s", info.State, info.Error)
	}
}
