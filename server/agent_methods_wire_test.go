package server

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// Through a real LSP client: Mistral's content parts arrive as reasoning
// and text events; vLLM's older mid-stream refusal of a prompt too long
// for its window is an error naming the server by its host, the window it
// named is learned and said, and the next prompt of the session is not
// refused again.
func TestLSPMistralPartsAndVLLMRefusal(t *testing.T) {
	t.Run("mistral", func(t *testing.T) {
		e := newEnv(t, "")
		e.model.SetVendor(modeltest.Mistral)
		e.model.Script(modeltest.Turn{Thinking: "Three minus one.", Text: "Two are left."})
		got := runTurns(t, e, "three apples, one eaten?")
		if r := got.Results[0]; r.StopReason != wire.StopEndTurn || r.Text != "Two are left." {
			t.Errorf("result %+v", r)
		}
		if th, txt := got.deltas(wire.EventReasoning), got.deltas(wire.EventText); th != "Three minus one." || txt != "Two are left." {
			t.Errorf("reasoning %q, text %q", th, txt)
		}
	})
	t.Run("vllm", func(t *testing.T) {
		e := newEnv(t, "")
		e.model.SetVendor(modeltest.VLLM)
		e.model.SetLimits(modeltest.Limits{ContextWindow: 6000})
		e.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
			if strings.Contains(r.System(), "You compact a coding agent's conversation") {
				return modeltest.Turn{Text: "The user said hi."}, true
			}
			return modeltest.Turn{}, false
		})
		e.model.Script(modeltest.Turn{Text: "hello"}, modeltest.Turn{Text: "still here"})
		huge := strings.Repeat("Consider this line of the design document too. ", 900)
		got := runTurns(t, e, "hi", huge, "and now a short one")
		if len(got.Results) != 3 {
			t.Fatalf("results %+v", got.Results)
		}
		host := strings.TrimPrefix(e.model.URL(), "http://")
		if r := got.Results[1]; r.StopReason != wire.StopError || !strings.Contains(r.Error, "("+host+" said: The decoder prompt (length ") {
			t.Errorf("the refused turn: %+v; want an error passing vLLM's message, naming %s", r, host)
		}
		learned := false
		for _, ev := range got.Events {
			learned = learned || ev.Type == wire.EventStatus && strings.Contains(ev.Message, "its window is 6000 tokens ("+host+"'s context-exceeded error)")
		}
		if !learned {
			t.Error("no status event says the window learned from vLLM's refusal")
		}
		if r := got.Results[2]; r.StopReason != wire.StopEndTurn || r.Text != "still here" {
			t.Errorf("the next prompt: %+v; want it answered", r)
		}
	})
}
