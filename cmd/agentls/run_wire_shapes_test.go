package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// jsonEvents parses `agentls run --json` output.
func jsonEvents(t *testing.T, out string) []wire.Event {
	t.Helper()
	var evs []wire.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev wire.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// Mistral's reasoning models stream delta.content as an array of parts:
// the thinking reaches the user as reasoning, never as the answer.
func TestRunMistralReasoningPartsAreReasoning(t *testing.T) {
	e := newLongEnv(t, "openai", "context_window = 200000\n")
	e.model.SetVendor(modeltest.Mistral)
	e.model.Script(modeltest.Turn{Thinking: "Three apples, one eaten: two are left.", Text: "Two apples are left."})
	code, out, errOut := e.run(t, "--json", "I had three apples and ate one")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var said, thought strings.Builder
	evs := jsonEvents(t, out)
	for _, ev := range evs {
		switch ev.Type {
		case "text":
			said.WriteString(ev.Delta)
		case "reasoning":
			thought.WriteString(ev.Delta)
		}
	}
	if said.String() != "Two apples are left." || thought.String() != "Three apples, one eaten: two are left." {
		t.Errorf("answer %q, reasoning %q", said.String(), thought.String())
	}
	if done := evs[len(evs)-1]; done.Type != "done" || done.Text != "Two apples are left." {
		t.Errorf("done %+v", done)
	}
}

// vLLM before 0.10 refuses a request longer than its model's window in
// the middle of a 200 stream ({"object":"error",...}). Its message reaches
// agentls, which learns the window from it, compacts and goes on, instead
// of retrying the same request four times and failing.
func TestRunVLLMMidStreamRefusalTeachesTheWindow(t *testing.T) {
	const served = 9000
	e := newLongEnv(t, "openai", "context_window = 16000\n")
	e.model.SetVendor(modeltest.VLLM)
	e.model.SetLimits(modeltest.Limits{ContextWindow: served})
	e.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
		if isSummaryRequest(r) {
			return modeltest.Turn{Text: "The user asked to read big.txt several times; it holds numbered lines about a fox."}, true
		}
		return modeltest.Turn{}, false
	})
	e.model.Script(readTurns(8, "I read it 8 times.")...)
	code, out, errOut := e.run(t, "read big.txt eight times")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "its window is 9000 tokens (127.0.0.1:") {
		t.Errorf("stderr does not say the window vLLM named:\n%s", errOut)
	}
	if e.model.Pending() != 0 || !strings.Contains(out, "I read it 8 times.") {
		t.Errorf("%d turns left; stdout %s", e.model.Pending(), out)
	}
	if b := e.model.Billing(); b.MaxInput > served {
		t.Errorf("an answered request of %d tokens passed vLLM's %d", b.MaxInput, served)
	}
	if refused := len(e.model.ModelRequests("")) - e.model.Billing().Requests; refused != 1 {
		t.Errorf("%d requests refused; want 1 (learned from the first)", refused)
	}
}

// [model] stream_idle_timeout reaches the client: a model that goes silent
// before its first byte is given up after it and asked again, and a model
// silent on every attempt ends the run with an error saying it stalled.
func TestRunASilentModelIsGivenUpAfterStreamIdleTimeout(t *testing.T) {
	e := newLongEnv(t, "openai", "context_window = 200000\nstream_idle_timeout = \"300ms\"\n")
	e.model.Script(modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Text: "here now"})
	code, out, errOut := e.run(t, "hello")
	if code != 0 || !strings.Contains(out, "here now") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	e.model.Script(modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Delay: time.Hour})
	code, _, errOut = e.run(t, "hello again")
	if code != 1 || !strings.Contains(errOut, "the stream stalled") || !strings.Contains(errOut, "sent nothing for 300ms before answering") {
		t.Fatalf("exit %d; stderr does not say the stream stalled:\n%s", code, errOut)
	}
}
