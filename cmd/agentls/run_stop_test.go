package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// lastDone is the done event of a `run --json` output.
func lastDone(t *testing.T, stdout string) (stop, text, errMsg string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev struct{ Type, StopReason, Text, Error string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "done" {
			stop, text, errMsg = ev.StopReason, ev.Text, ev.Error
		}
	}
	return stop, text, errMsg
}

// transcriptOf is the one session transcript of e.
func transcriptOf(t *testing.T, e *runEnv) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(e.state, "agentls", "transcripts", "*.md"))
	if len(matches) != 1 {
		t.Fatalf("transcripts %v, want one", matches)
	}
	md, _ := os.ReadFile(matches[0])
	return string(md)
}

// TestRunStopReasonsReachTheUser: an answer cut at max_tokens, one a
// reasoning model spent all thinking, and a refusal each end the run with
// their own stop reason, exit code and message, in the text output, the
// --json done event and the transcript. Before, each ended as end_turn, exit 0.
func TestRunStopReasonsReachTheUser(t *testing.T) {
	cases := []struct {
		name, wantStop, wantMsg, wantOut string
		turn                             modeltest.Turn
		code                             int
	}{
		{"an answer cut at max_tokens", "max_tokens", "cut at max_tokens (8192 tokens)", "The first half of",
			modeltest.Turn{Text: "The first half of", StopReason: "max_tokens"}, exitMaxTokens},
		{"a reasoning model that spent max_tokens thinking", "max_tokens", "spent all of max_tokens (8192 tokens) before it answered", "",
			modeltest.Turn{Thinking: "Let me think about this at length.", StopReason: "max_tokens"}, exitMaxTokens},
		{"a refusal shows its text", "refusal", "declined to answer", "I can't help with that.",
			modeltest.Turn{Refusal: "I can't help with that."}, exitRefusal},
	}
	for _, format := range []string{"anthropic", "openai"} {
		for _, c := range cases {
			t.Run(format+"/"+c.name, func(t *testing.T) {
				e := newRunEnv(t, format, "")
				e.model.Script(c.turn)
				code, stdout, stderr := e.run(t, "answer at length")
				if code != c.code || strings.TrimSpace(stdout) != c.wantOut || !strings.Contains(stderr, "agentls run: ") || !strings.Contains(stderr, c.wantMsg) {
					t.Fatalf("exit %d (want %d)\nstdout: %q (want %q)\nstderr: %s (want %q)", code, c.code, stdout, c.wantOut, stderr, c.wantMsg)
				}
				if md := transcriptOf(t, e); !strings.Contains(md, "*"+c.wantStop+": ") {
					t.Errorf("the transcript does not end with %s:\n%s", c.wantStop, md)
				}
				e.model.Script(c.turn)
				code, stdout, stderr = e.run(t, "--json", "--continue", "again")
				if stop, text, msg := lastDone(t, stdout); code != c.code || stop != c.wantStop || text != c.wantOut || !strings.Contains(msg, c.wantMsg) {
					t.Errorf("--json: exit %d, done %q %q %q\nstderr: %s", code, stop, text, msg, stderr)
				}
			})
		}
	}
}

// TestRunMaxTokensInsideToolArgumentsAsksAgainWithMore: an answer cut by
// max_tokens inside a tool call's arguments is not run, nor told to the
// model as invalid JSON: the request goes again once with twice the
// budget; cut again, the run ends saying so.
func TestRunMaxTokensInsideToolArgumentsAsksAgainWithMore(t *testing.T) {
	cut := modeltest.Turn{Text: "Reading.", ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path": "hello.t`}}, StopReason: "max_tokens"}
	whole := modeltest.Turn{Text: "Reading.", ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path": "hello.txt"}`}}}
	budgets := func(e *runEnv) []float64 {
		var out []float64
		for _, r := range e.model.ModelRequests("") {
			n, _ := r.JSON()["max_tokens"].(float64)
			out = append(out, n)
		}
		return out
	}
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format+"/once: asked again with twice the budget", func(t *testing.T) {
			e := newRunEnv(t, format, "")
			os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello\n"), 0o644)
			e.model.Script(cut, whole, modeltest.Turn{Text: "It says hello."})
			code, stdout, stderr := e.run(t, "read hello.txt")
			if code != 0 || !strings.Contains(stdout, "It says hello.") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "inside the arguments of read_file: asking again with 16384") {
				t.Errorf("stderr does not say the request went again:\n%s", stderr)
			}
			if got := budgets(e); len(got) != 3 || got[0] != 8192 || got[1] != 16384 {
				t.Errorf("max_tokens of the requests %v, want 8192 then 16384", got)
			}
			for _, r := range e.model.ModelRequests("") {
				for _, tr := range r.ToolResults() {
					if strings.Contains(tr.Content, "JSON") || tr.IsError {
						t.Errorf("the model was told %q", tr.Content)
					}
				}
			}
		})
		t.Run(format+"/twice: a clear error, nothing run", func(t *testing.T) {
			e := newRunEnv(t, format, "")
			e.model.Script(cut, cut)
			code, stdout, stderr := e.run(t, "read hello.txt")
			if code != exitMaxTokens || !strings.Contains(stderr, "inside the arguments of read_file twice (at 8192 and 16384 tokens), so nothing was run: raise [model] max_tokens") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if strings.Contains(stderr, "→ read_file") {
				t.Errorf("a cut call ran:\n%s", stderr)
			}
		})
	}
}
