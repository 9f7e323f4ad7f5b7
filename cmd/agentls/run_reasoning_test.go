package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// reasoningRead is a reasoning model's tool turn: it thinks, then reads
// hello.txt with the built-in read_file.
func reasoningRead(thought string) modeltest.Turn {
	return modeltest.Turn{Thinking: thought, ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"hello.txt"}`}}}
}

// TestRunReasoningModelsToolTurnsComplete replays DeepSeek's thinking mode,
// Gemini 3's OpenAI-compatible endpoint and Gemini 3 behind OpenRouter
// through the real `agentls run`: each refuses a tool turn's follow-up
// unless what it attached to the answer comes back (reasoning_content; the
// call's thought_signature; the message's reasoning_details), on
// the same turn and on a session continued from disk with --continue.
func TestRunReasoningModelsToolTurnsComplete(t *testing.T) {
	for _, v := range []modeltest.Vendor{modeltest.DeepSeek, modeltest.Gemini, modeltest.OpenRouter} {
		t.Run(string(v), func(t *testing.T) {
			e := newRunEnv(t, "openai", "")
			e.model.SetVendor(v)
			if err := os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.model.Script(reasoningRead("The user wants hello.txt; reading it."), modeltest.Turn{Text: "The file says hello."})
			code, stdout, stderr := e.run(t, "what does hello.txt say?")
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "The file says hello.") {
				t.Errorf("stdout = %q, want the answer", stdout)
			}
			e.model.Script(reasoningRead("Read it again, as asked."), modeltest.Turn{Text: "Still hello."})
			code, stdout, stderr = e.run(t, "--continue", "read it once more")
			if code != 0 {
				t.Fatalf("--continue: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "Still hello.") {
				t.Errorf("--continue: stdout = %q, want the answer", stdout)
			}
			if n := len(e.model.ModelRequests("openai")); n != 4 {
				t.Errorf("%d model requests, want 4 (none refused)", n)
			}
		})
	}
}

// TestRunShowsReasoningMarkedNeverAsTheAnswer: the reasoning goes to
// stderr, each line marked, and never to stdout (the answer); --json has
// it as reasoning events; the transcript keeps it folded.
func TestRunShowsReasoningMarkedNeverAsTheAnswer(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			e := newRunEnv(t, format, "")
			thought := "First line of thought.\nSecond line of thought."
			e.model.Script(modeltest.Turn{Thinking: thought, Text: "The answer."})
			code, stdout, stderr := e.run(t, "think, then answer")
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if strings.TrimSpace(stdout) != "The answer." {
				t.Errorf("stdout = %q, want the answer alone", stdout)
			}
			if !strings.Contains(stderr, reasoningMark+"First line of thought.\n"+reasoningMark+"Second line of thought.\n") {
				t.Errorf("stderr does not show the reasoning marked line by line:\n%s", stderr)
			}

			e.model.Script(modeltest.Turn{Thinking: thought, Text: "The answer."})
			code, stdout, stderr = e.run(t, "--json", "--continue", "again")
			if code != 0 {
				t.Fatalf("--json: exit %d\n%s", code, stderr)
			}
			var reasoning, text strings.Builder
			sc := bufio.NewScanner(strings.NewReader(stdout))
			for sc.Scan() {
				var ev struct{ Type, Delta, Text string }
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				switch ev.Type {
				case "reasoning":
					reasoning.WriteString(ev.Delta)
				case "text":
					text.WriteString(ev.Delta)
				case "done":
					if strings.Contains(ev.Text, "thought") {
						t.Errorf("done's text carries the reasoning: %q", ev.Text)
					}
				}
			}
			if reasoning.String() != thought || text.String() != "The answer." {
				t.Errorf("reasoning events %q, text events %q", reasoning.String(), text.String())
			}

			matches, _ := filepath.Glob(filepath.Join(e.state, "agentls", "transcripts", "*.md"))
			if len(matches) != 1 {
				t.Fatalf("transcripts %v, want one", matches)
			}
			md, _ := os.ReadFile(matches[0])
			if !strings.Contains(string(md), "<details><summary>Reasoning</summary>") || !strings.Contains(string(md), "Second line of thought.") {
				t.Errorf("the transcript does not keep the reasoning folded:\n%s", md)
			}
		})
	}
}

// TestTextSinkShowsReasoningDimOnATerminal: on a terminal the marked
// reasoning lines are dim, and the dimming ends before anything else.
func TestTextSinkShowsReasoningDimOnATerminal(t *testing.T) {
	var out, info strings.Builder
	s := &textSink{out: &out, info: &info, dim: true}
	s.Event(wire.Event{Type: wire.EventReasoning, Delta: "one\ntwo"})
	s.Event(wire.Event{Type: wire.EventText, Delta: "answer"})
	s.finish()
	if want := "\x1b[2m" + reasoningMark + "one\n" + reasoningMark + "two\x1b[22m\n"; info.String() != want {
		t.Errorf("stderr %q, want %q", info.String(), want)
	}
	if out.String() != "answer\n" {
		t.Errorf("stdout %q, want the answer alone", out.String())
	}
}
