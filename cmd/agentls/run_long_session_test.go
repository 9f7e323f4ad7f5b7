package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// Long sessions through the real binary: a fake model that enforces a
// context window and bills the prompt cache the way each API does.

// longEnv is a workspace with one big file, a config pointing at the fake
// model, and a private state directory.
type longEnv struct {
	bin, ws, state, config string
	model                  *modeltest.Server
}

func newLongEnv(t *testing.T, format, extra string) *longEnv {
	t.Helper()
	e := &longEnv{bin: testenv.Agentls(t), model: modeltest.New(t)}
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	e.ws, e.state, e.config = filepath.Join(tmp, "ws"), filepath.Join(tmp, "state"), filepath.Join(tmp, "config.toml")
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	// About 2k tokens (8 KB) of distinct lines.
	var big strings.Builder
	for i := 0; big.Len() < 8000; i++ {
		fmt.Fprintf(&big, "line %04d: the quick brown fox jumps over the lazy dog %d\n", i, i*7919%1000)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	base := e.model.URL()
	if format == "openai" {
		base += "/v1"
	}
	cfg := fmt.Sprintf("[model]\nprovider = %q\nname = \"fake-model\"\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n%s\n[agent]\nmax_iterations = 60\n", format, base, extra)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *longEnv) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(e.bin, append([]string{"run"}, args...)...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+e.config, "XDG_STATE_HOME="+e.state, "AGENTLS_TEST_KEY=test")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("agentls run: %v", err)
	}
	return 0, out.String(), errb.String()
}

// readTurns scripts n turns that each read big.txt, then a final answer.
func readTurns(n int, final string) []modeltest.Turn {
	var turns []modeltest.Turn
	for i := 0; i < n; i++ {
		// The assistant's own text is never elided: with it, only a summary
		// keeps 40 turns inside the window.
		turns = append(turns, modeltest.Turn{Text: fmt.Sprintf("Reading it again (%d). ", i+1) + strings.Repeat("Still checking every numbered line for the fox. ", 20),
			ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"big.txt"}`}}})
	}
	return append(turns, modeltest.Turn{Text: final})
}

// isSummaryRequest tells a compaction's summary request from the task's own.
func isSummaryRequest(r modeltest.Request) bool {
	return strings.Contains(r.System(), "You compact a coding agent's conversation")
}

var sessionLine = regexp.MustCompile(`agentls: session (\S+) `)

func TestLongSessionFitsTheWindow(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		for _, refusal := range []string{"", "prompt", "input and max_tokens"} {
			if refusal == "input and max_tokens" && format != "anthropic" {
				continue // Anthropic's refusal of input plus max_tokens over the window
			}
			refuseOnce := refusal != ""
			name := format
			switch refusal {
			case "prompt":
				name += "/model refuses once"
			case "input and max_tokens":
				name += "/model refuses input and max_tokens once"
			}
			t.Run(name, func(t *testing.T) {
				const window = 16000
				e := newLongEnv(t, format, fmt.Sprintf("context_window = %d\n", window))
				e.model.SetLimits(modeltest.Limits{ContextWindow: window})
				summaries, refused := 0, 0
				e.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
					if isSummaryRequest(r) {
						summaries++
						return modeltest.Turn{Text: "The user asked to read big.txt many times; it holds numbered lines about a fox."}, true
					}
					// A model whose real window is smaller than configured:
					// the first request over 9000 tokens is refused.
					if refuseOnce && refused == 0 && len(r.Body)/4 > 9000 {
						refused++
						msg := "prompt is too long: 9100 tokens > 9000 maximum"
						if format == "openai" {
							msg = "This model's maximum context length is 9000 tokens. However, your messages resulted in 9100 tokens."
						}
						if refusal == "input and max_tokens" {
							msg = "input length and `max_tokens` exceed context limit: 8900 + 8192 > 9000, decrease input length or `max_tokens` and try again"
						}
						return modeltest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: msg}, true
					}
					return modeltest.Turn{}, false
				})
				e.model.Script(readTurns(40, "I read it 40 times.")...)
				code, out, errOut := e.run(t, "read big.txt forty times")
				if code != 0 {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
				}
				if e.model.Pending() != 0 {
					t.Fatalf("%d scripted turns left: the task stopped early", e.model.Pending())
				}
				b := e.model.Billing()
				reqs := e.model.ModelRequests("")
				if b.Requests != len(reqs)-refused {
					t.Errorf("%d requests, %d answered: the fake refused some as over the %d-token window", len(reqs), b.Requests, window)
				}
				if b.MaxInput > window {
					t.Errorf("a request of %d tokens passed the %d window", b.MaxInput, window)
				}
				if summaries == 0 {
					t.Errorf("40 reads of 2k tokens fit a 16k window without ever summarizing?")
				}
				if refuseOnce && refused != 1 {
					t.Errorf("refused %d times, want 1", refused)
				}
				if !strings.Contains(errOut, "compacted the conversation") {
					t.Errorf("stderr does not say the conversation was compacted:\n%s", errOut)
				}
				// The refusal named the model's real window: it is used from
				// then on, said, and remembered for the next process.
				learned := "its window is 9000 tokens (127.0.0.1:"
				if refuseOnce && !strings.Contains(errOut, learned) {
					t.Errorf("stderr does not say the window learned from the refusal (%q):\n%s", learned, errOut)
				}
				m := sessionLine.FindStringSubmatch(errOut)
				if m == nil {
					t.Fatalf("no session line on stderr:\n%s", errOut)
				}
				// The session file keeps every turn, compacted or not.
				assertSessionKeepsResults(t, e.state, m[1], 40)

				// A follow-up prompt in the same session works, and sees the summary.
				e.model.Script(modeltest.Turn{Text: "It is about a fox."})
				code, out, errOut = e.run(t, "--session", m[1], "what is in big.txt?")
				if code != 0 || !strings.Contains(out, "fox") {
					t.Fatalf("follow-up: exit %d\nstdout %s\nstderr %s", code, out, errOut)
				}
				wantWindow := "the model's context window: 16000 tokens ([model] context_window)"
				if refuseOnce {
					wantWindow = "the model's context window: 9000 tokens (remembered: 127.0.0.1:"
				}
				if !strings.Contains(errOut, wantWindow) {
					t.Errorf("the follow-up does not say %q:\n%s", wantWindow, errOut)
				}
				all := e.model.ModelRequests("")
				last := all[len(all)-1]
				if !strings.Contains(string(last.Body), "summary of the earlier conversation") {
					t.Errorf("the follow-up request does not carry the summary")
				}
				if got := e.model.Billing().MaxInput; got > window {
					t.Errorf("follow-up request of %d tokens passed the window", got)
				}
			})
		}
	}
}

// assertSessionKeepsResults checks the session file still holds n tool
// results in full.
func assertSessionKeepsResults(t *testing.T, state, id string, n int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(state, "agentls", "sessions", "*", id+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("session file for %s: found %v", id, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	full := 0
	for sc.Scan() {
		var m struct {
			Content []struct{ Type, Content string }
		}
		json.Unmarshal(sc.Bytes(), &m)
		for _, b := range m.Content {
			if b.Type == "tool_result" && strings.Contains(b.Content, "line 0099") {
				full++
			}
		}
	}
	if full != n {
		t.Errorf("session file holds %d full tool results, want %d", full, n)
	}
}

func TestPromptCacheCarriesLongTasks(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			e := newLongEnv(t, format, "context_window = 200000\n")
			e.model.Script(readTurnsOf(30, "small.txt", "Done.")...)
			writeSmall(t, e.ws)
			code, out, errOut := e.run(t, "--json", "read small.txt thirty times")
			if code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}
			b := e.model.Billing()
			if share := b.CachedShare(); share < 0.8 {
				t.Errorf("cached share of input tokens %.2f over %d requests (read %d of %d), want >= 0.8", share, b.Requests, b.CacheRead, b.Input)
			}
			if b.MaxCacheControl > modeltest.MaxCacheControl {
				t.Errorf("a request carried %d cache_control blocks, the API allows %d", b.MaxCacheControl, modeltest.MaxCacheControl)
			}
			// The done event reports the cache as the provider billed it.
			var done struct {
				Type  string
				Usage struct{ InputTokens, CacheReadTokens int }
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var ev struct{ Type string }
				json.Unmarshal([]byte(line), &ev)
				if ev.Type == "done" {
					json.Unmarshal([]byte(line), &done)
				}
			}
			if done.Usage.CacheReadTokens != b.CacheRead || done.Usage.InputTokens != b.Input {
				t.Errorf("done usage %+v, the model billed input %d, cache read %d", done.Usage, b.Input, b.CacheRead)
			}
			t.Logf("%s: %d requests, input %d tokens, cache read %d (%.2f), cache write %d", format, b.Requests, b.Input, b.CacheRead, b.CachedShare(), b.CacheWrite)
		})
	}
}

func readTurnsOf(n int, file, final string) []modeltest.Turn {
	var turns []modeltest.Turn
	for i := 0; i < n; i++ {
		turns = append(turns, modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, file)}}})
	}
	return append(turns, modeltest.Turn{Text: final})
}

func writeSmall(t *testing.T, ws string) {
	t.Helper()
	var s strings.Builder
	for i := 0; s.Len() < 1200; i++ {
		fmt.Fprintf(&s, "entry %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(ws, "small.txt"), []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A request the server refuses as too long when compaction can make it no
// shorter (its one prompt counts more tokens on the server than agentls
// estimated, as random-looking text does on llama.cpp) is not sent again,
// and the error says so and what to do, not only the server's refusal.
func TestRunATurnCompactionCannotShortenSaysWhatToDo(t *testing.T) {
	e := newLongEnv(t, "openai", "context_window = 16000\n")
	e.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
		return modeltest.Turn{Status: 400, ErrorType: "exceed_context_size_error",
			ErrorMessage: "request (17000 tokens) exceeds the available context size (16000 tokens), try increasing it"}, true
	})
	code, out, errOut := e.run(t, "summarize these numbers: 9f3a 77c1 0b2e")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout %s\nstderr %s", code, out, errOut)
	}
	if n := len(e.model.ModelRequests("")); n != 1 {
		t.Errorf("%d model requests; want 1 (nothing to compact, so no retry)", n)
	}
	for _, want := range []string{
		"127.0.0.1:", "exceeds the available context size (16000 tokens)",
		"compaction cannot make it shorter, so it was not sent again: put long text in a file of the workspace",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "compacted the conversation") {
		t.Errorf("stderr says the conversation was compacted, and nothing could be:\n%s", errOut)
	}
}
