package mcp

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
)

func wantError(t *testing.T, res Result, prefix string, parts ...string) {
	t.Helper()
	if !res.IsError || !strings.HasPrefix(res.Text, prefix) {
		t.Fatalf("result %+v, want an error starting %q", res, prefix)
	}
	for _, p := range parts {
		if !strings.Contains(res.Text, p) {
			t.Fatalf("error %q does not say %q", res.Text, p)
		}
	}
}

func TestFaultHangPastCallTimeout(t *testing.T) {
	s := faultServer(t, "f")
	s.CallTimeout = 300 * time.Millisecond
	r := startRegistry(t, []config.Server{s}, Options{})
	wantError(t, call(t, r, "f__hang", `{}`), "ERROR: f: ", "call_timeout (300ms)")
	// A slow tool in a server that still answers pings keeps the session.
	mustCall(t, r, "f__echo", `{"text":"still here"}`, "still here")
}

func TestFaultFrozenServerIsStoppedAndRestarted(t *testing.T) {
	s := faultServer(t, "f")
	s.CallTimeout = 300 * time.Millisecond
	r := startRegistry(t, []config.Server{s}, Options{KillGrace: 200 * time.Millisecond})
	wantError(t, call(t, r, "f__freeze", `{}`), "ERROR: f: ", "did not answer")
	eventually(t, "the frozen server to be marked failed", func() bool { return serverInfo(t, r, "f").State == Failed })
	if e := serverInfo(t, r, "f").Error; !strings.Contains(e, "stopped answering") {
		t.Errorf("error %q, want it to say the server stopped answering", e)
	}
	mustCall(t, r, "f__echo", `{"text":"back"}`, "back")
}

func TestFaultKilledMidCall(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f")}, Options{})
	wantError(t, call(t, r, "f__die", `{}`), "ERROR: f: ", "exited during the call", "killed by signal", "dying mid-call", "restarted on next use")
	info := serverInfo(t, r, "f")
	if info.State != Failed {
		t.Fatalf("state %s after the server died, want failed", info.State)
	}
	if len(r.Tools()) == 0 {
		t.Fatalf("a server that may still be restarted lost its tools")
	}
	mustCall(t, r, "f__echo", `{"text":"restarted"}`, "restarted")
	if st := serverInfo(t, r, "f").State; st != Connected {
		t.Fatalf("state %s after restart on use, want connected", st)
	}
}

func TestFaultRestartsAreBounded(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f")}, Options{MaxRestarts: 2, RestartBackoff: time.Millisecond})
	wantError(t, call(t, r, "f__die", `{}`), "ERROR: f: ", "exited during the call")
	for i := 1; i <= 2; i++ {
		eventually(t, "the backoff to pass", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return time.Now().After(r.servers["f"].retryAt)
		})
		wantError(t, call(t, r, "f__die", `{}`), "ERROR: f: ", "exited during the call")
	}
	wantError(t, call(t, r, "f__die", `{}`), "ERROR: f: ", "gave up after 2 restarts")
	if n := len(r.Tools()); n != 0 {
		t.Errorf("a server past its restarts still offers %d tools", n)
	}
}

func TestFaultRestartBackoff(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f")}, Options{RestartBackoff: time.Hour})
	wantError(t, call(t, r, "f__die", `{}`), "ERROR: f: ", "exited during the call")
	wantError(t, call(t, r, "f__die", `{}`), "ERROR: f: ", "exited during the call") // first restart is immediate
	wantError(t, call(t, r, "f__echo", `{"text":"x"}`), "ERROR: f: ", "next restart attempt in")
}

func TestFaultGarbageOnStdout(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}
	r := startRegistry(t, []config.Server{faultServer(t, "f", "-garbage-at-start")}, Options{Logf: logf})
	if info := serverInfo(t, r, "f"); info.State != Connected {
		t.Fatalf("garbage before the handshake: state %s (%s)", info.State, info.Error)
	}
	mustCall(t, r, "f__garbage", `{}`, "ok after garbage")
	mustCall(t, r, "f__echo", `{"text":"fine"}`, "fine")
	tail := serverInfo(t, r, "f").StderrTail
	for _, want := range []string{"Starting fault server", "a JSON log line that is not JSON-RPC", "garbage line from a tool"} {
		if !strings.Contains(tail, want) {
			t.Errorf("stderr tail does not keep the junk line %q:\n%s", want, tail)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(logs, "\n"), "not JSON-RPC") {
		t.Errorf("junk lines were not logged: %v", logs)
	}
}

func TestFaultHugeResultIsCapped(t *testing.T) {
	s := faultServer(t, "f")
	s.CallTimeout = 5 * time.Minute // moving 20 MB is slow under -race; this test is not about time
	r := startRegistry(t, []config.Server{s}, Options{ResultMaxBytes: 1000})
	res := call(t, r, "f__big", `{"bytes":20000000}`)
	if res.IsError {
		t.Fatalf("20 MB result: %s", res.Text)
	}
	if !strings.HasPrefix(res.Text, strings.Repeat("x", 1000)+"\n[result cut: ") || len(res.Text) > 1200 {
		t.Fatalf("20 MB result not capped at 1000 bytes with a marker: %d bytes, ends %q", len(res.Text), res.Text[max(0, len(res.Text)-120):])
	}
	mustCall(t, r, "f__echo", `{"text":"alive"}`, "alive")
}

func TestFaultMessageOverLimitFailsOnlyThatCall(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f")}, Options{MessageMaxBytes: 1 << 20})
	wantError(t, call(t, r, "f__big", `{"bytes":2000000}`), "ERROR: f: ", "over the 1048576-byte limit")
	mustCall(t, r, "f__echo", `{"text":"alive"}`, "alive")
}

func TestFaultTooManyTools(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}
	r := startRegistry(t, []config.Server{faultServer(t, "f", "-tools", "300")}, Options{MaxToolsPerServer: 64, Logf: logf})
	info := serverInfo(t, r, "f")
	if len(info.Tools) != 64 {
		t.Fatalf("%d tools, want max_tools_per_server = 64", len(info.Tools))
	}
	if len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0], "only the first 64") {
		t.Errorf("warnings %v, want a note about the dropped tools", info.Warnings)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(logs, "\n"), "max_tools_per_server") {
		t.Errorf("no warning logged: %v", logs)
	}
}

func TestFaultStartFailures(t *testing.T) {
	slow := faultServer(t, "slow", "-handshake-delay", "30s", "-child")
	slow.ConnectTimeout = 300 * time.Millisecond
	slowList := faultServer(t, "slowlist", "-list-delay", "30s")
	slowList.ListTimeout = 300 * time.Millisecond
	missing := faultServer(t, "missing")
	missing.Command = "agentls-no-such-command"
	quits := faultServer(t, "quits", "-exit-at-once", "3")
	healthy := faultServer(t, "healthy")
	r := startRegistry(t, []config.Server{slow, slowList, missing, quits, healthy}, Options{})
	tests := []struct {
		server string
		want   []string
	}{
		{"slow", []string{"connect timed out after 300ms", "spawn + initialize"}},
		{"slowlist", []string{"tools/list timed out after 300ms"}},
		{"missing", []string{`command "agentls-no-such-command" not found in $PATH`}},
		{"quits", []string{"exited during connect: exit status 3", "faultserver: exiting at once with code 3"}},
	}
	for _, tc := range tests {
		t.Run(tc.server+" fails alone and says why", func(t *testing.T) {
			info := serverInfo(t, r, tc.server)
			if info.State != Failed {
				t.Fatalf("state %s, want failed", info.State)
			}
			for _, w := range tc.want {
				if !strings.Contains(info.Error, w) {
					t.Errorf("error %q does not say %q", info.Error, w)
				}
			}
		})
	}
	if info := serverInfo(t, r, "healthy"); info.State != Connected {
		t.Fatalf("the healthy server was affected: %s %s", info.State, info.Error)
	}
	mustCall(t, r, "healthy__echo", `{"text":"unaffected"}`, "unaffected")
}

func TestFaultHangDoesNotBlockOtherServers(t *testing.T) {
	hung := faultServer(t, "hung")
	hung.CallTimeout = 20 * time.Second
	r := startRegistry(t, []config.Server{hung, faultServer(t, "ok")}, Options{})
	done := make(chan Result, 1)
	go func() { done <- call(t, r, "hung__hang", `{}`) }()
	mustCall(t, r, "ok__echo", `{"text":"while the other hangs"}`, "while the other hangs")
	select {
	case res := <-done:
		t.Fatalf("the hanging call returned before its timeout: %+v", res)
	default:
	}
	r.Close() // ends the hanging call too
	wantError(t, <-done, "ERROR: hung: ")
}

func TestFaultIgnoredSIGTERMIsKilled(t *testing.T) {
	s := faultServer(t, "f", "-ignore-term", "-linger")
	r := startRegistry(t, []config.Server{s}, Options{KillGrace: 200 * time.Millisecond})
	mustCall(t, r, "f__echo", `{"text":"x"}`, "x")
	r.Close() // startRegistry's cleanup checks the process table
}

func TestFaultStdoutClosedWhileRunning(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f", "-linger")}, Options{KillGrace: 200 * time.Millisecond})
	mustCall(t, r, "f__close_stdout", `{}`, "closing stdout")
	eventually(t, "the server to be marked failed", func() bool { return serverInfo(t, r, "f").State == Failed })
	if e := serverInfo(t, r, "f").Error; !strings.Contains(e, "closed its stdout while still running") {
		t.Errorf("error %q, want it to say stdout was closed", e)
	}
	mustCall(t, r, "f__echo", `{"text":"restarted"}`, "restarted")
}
