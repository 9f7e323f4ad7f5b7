package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// llamaEnv is a temp home for `agentls run` against llama.cpp's real
// llama-server (scripts/llama-server.sh; its tiny hand-set model calls a
// tool when no tool has answered yet, else says "done"), with the config a
// user writes for it.
type llamaEnv struct {
	bin, ws, state, config, url string
}

func newLlamaEnv(t *testing.T, ctx int, extra string) *llamaEnv {
	t.Helper()
	e := &llamaEnv{bin: testenv.Agentls(t), url: testenv.LlamaServer(t, ctx)}
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	e.ws, e.state, e.config = filepath.Join(tmp, "ws"), filepath.Join(tmp, "state"), filepath.Join(tmp, "config.toml")
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(e.ws, "README.md"), "# a project\n")
	cfg := fmt.Sprintf("[model]\nprovider = \"llamacpp\"\nname = \"qwen2.5-coder\"\nbase_url = %q\n%s\n", e.url, extra)
	testenv.WriteFile(t, e.config, cfg)
	return e
}

func (e *llamaEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+e.config, "XDG_STATE_HOME="+e.state)
	return cmd
}

// runJSON runs `agentls run --json ARGS...` and returns its exit code,
// events and stderr.
func (e *llamaEnv) runJSON(t *testing.T, args ...string) (int, []wire.Event, string) {
	t.Helper()
	cmd := e.command(append([]string{"run", "--json"}, args...)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("agentls run: %v", err)
	}
	var evs []wire.Event
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev wire.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return code, evs, errb.String()
}

func eventsOf(evs []wire.Event, typ string) []wire.Event {
	var out []wire.Event
	for _, ev := range evs {
		if string(ev.Type) == typ {
			out = append(out, ev)
		}
	}
	return out
}

// A tool turn through llama.cpp's own chat template, tool-call grammar
// and parser: the model's call reaches a tool, its result goes back in the
// template's <tool_response>, and the model's answer ends the task.
func TestRunAgainstARealLlamaServerCompletesAToolTurn(t *testing.T) {
	e := newLlamaEnv(t, 8192, "")
	code, evs, stderr := e.runJSON(t, "look at this repository")
	if code != 0 && code != exitUnasked { // the tiny model may call a tool that asks: nobody can answer here
		t.Fatalf("exit %d; stderr:\n%s\nevents %+v", code, stderr, evs)
	}
	calls, results := eventsOf(evs, "tool_call"), eventsOf(evs, "tool_result")
	if len(calls) == 0 || len(results) == 0 {
		t.Fatalf("no tool turn: events %+v", evs)
	}
	done := evs[len(evs)-1]
	if done.Type != "done" || done.StopReason != "end_turn" || strings.TrimSpace(done.Text) != "done" {
		t.Fatalf("last event %+v; want done, end_turn, the model's \"done\"", done)
	}
}

// statusSays reports whether a status event's message contains want.
func statusSays(evs []wire.Event, want string) bool {
	for _, ev := range eventsOf(evs, "status") {
		if strings.Contains(ev.Message, want) {
			return true
		}
	}
	return false
}

// The window is asked of the server (llama.cpp's /props n_ctx), not guessed
// from the name (qwen2.5-coder would be 32768), and said where the user sees
// it: at the first turn and in agentls doctor.
func TestRunAgainstARealLlamaServerAsksItsWindow(t *testing.T) {
	e := newLlamaEnv(t, 4096, "")
	host := strings.TrimSuffix(strings.TrimPrefix(e.url, "http://"), "/v1")
	code, evs, stderr := e.runJSON(t, "look at this repository")
	if code != 0 && code != exitUnasked {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	want := "the model's context window: 4096 tokens (llama.cpp's /props n_ctx at " + host + ")"
	if !statusSays(evs, want) {
		t.Errorf("no status %q in %+v", want, eventsOf(evs, "status"))
	}
	out, err := e.command("doctor").CombinedOutput()
	if !strings.Contains(string(out), "window    4096 tokens (llama.cpp's /props n_ctx at "+host+"); compacts past 3072") {
		t.Errorf("doctor (%v) does not say the server's window:\n%s", err, out)
	}
}

// The case: a window configured (or guessed) larger than the
// server runs with. llama.cpp refuses the request with its
// exceed_context_size_error; agentls learns the window from it, says so
// naming the server by its host, and remembers it; the prompt it could
// never send is not sent again, so --continue works.
func TestRunAgainstARealLlamaServerLearnsItsWindowFromTheRefusal(t *testing.T) {
	e := newLlamaEnv(t, 4096, "context_window = 32768\n")
	host := strings.TrimSuffix(strings.TrimPrefix(e.url, "http://"), "/v1")
	huge := strings.Repeat("Please also consider this sentence about the repository layout. ", 600)
	code, evs, stderr := e.runJSON(t, huge)
	if code == 0 {
		t.Fatalf("a prompt of about 7000 tokens passed a 4096-token window: %+v\n%s", evs, stderr)
	}
	if !statusSays(evs, "its window is 4096 tokens ("+host+"'s context-exceeded error)") {
		t.Errorf("no status saying the learned window: %+v", eventsOf(evs, "status"))
	}
	done := evs[len(evs)-1]
	if done.Type != "done" || !strings.Contains(done.Message, "("+host+" said: request (") || !strings.Contains(done.Message, "exceeds the available context size (4096 tokens)") || strings.Contains(done.Message, "openai said") {
		t.Errorf("the error does not pass llama.cpp's message naming the server by its host: %+v", done)
	}
	code, evs, stderr = e.runJSON(t, "--continue", "look at this repository")
	if code != 0 && code != exitUnasked {
		t.Fatalf("--continue after the refused prompt: exit %d; stderr:\n%s\nevents %+v", code, stderr, evs)
	}
	if !statusSays(evs, "the model's context window: 4096 tokens (remembered: "+host+"'s context-exceeded error)") {
		t.Errorf("the next process does not start from the learned window: %+v", eventsOf(evs, "status"))
	}
	if len(eventsOf(evs, "tool_call")) == 0 || strings.TrimSpace(evs[len(evs)-1].Text) != "done" {
		t.Errorf("the continued turn did not complete a tool turn: %+v", evs)
	}
}
