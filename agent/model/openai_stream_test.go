package model

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Mistral's reasoning models stream delta.content as an array of parts:
// thinking parts are reasoning (shown as such, never as the answer), text
// parts the answer; a plain string content may follow in the same stream.
func TestMistralContentPartsAreReasoningAndText(t *testing.T) {
	var said, thought strings.Builder
	resp, err := decodeOpenAI(bytes.NewReader(readFixture(t, "openai_mistral_thinking.sse")),
		sink{text: func(s string) { said.WriteString(s) }, reasoning: func(s string) { thought.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	if said.String() != "Two apples are left." || thought.String() != "Three apples, one eaten: two are left." {
		t.Errorf("said %q, thought %q", said.String(), thought.String())
	}
	want := []Block{
		{Type: "thinking", Thinking: "Three apples, one eaten: two are left.", Field: "thinking"},
		{Type: "text", Text: "Two apples are left."},
	}
	if len(resp.Content) != 2 || resp.Content[0].Thinking != want[0].Thinking || resp.Content[0].Field != "thinking" || resp.Content[1].Text != want[1].Text || resp.StopReason != "end_turn" {
		t.Errorf("content %+v stop %q", resp.Content, resp.StopReason)
	}
}

// The same parts in a whole JSON answer (a server that does not stream).
func TestMistralContentPartsInAWholeAnswer(t *testing.T) {
	resp, err := openaiCompletionJSON([]byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"thinking","thinking":"Adding up."},{"type":"text","text":"4"}]},"finish_reason":"stop"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 2 || resp.Content[0].Thinking != "Adding up." || resp.Content[1].Text != "4" {
		t.Errorf("content %+v", resp.Content)
	}
}

// A content that is neither a string nor parts is a bad chunk, said so.
func TestContentOfAnotherShapeIsABadChunk(t *testing.T) {
	_, err := decodeOpenAI(strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":42}}]}\n\n"), sink{})
	if err == nil || !strings.Contains(err.Error(), "neither a string nor an array of parts") {
		t.Fatalf("err = %v", err)
	}
}

// vLLM before 0.10 sends a mid-stream error as {"object":"error",...}: its
// message is the error's, a 400 is not retried, and a context-length one
// is recognised as such.
func TestVLLMMidStreamErrorIsSurfaced(t *testing.T) {
	var hits atomic.Int32
	base := newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(readFixture(t, "openai_vllm_error.sse"))
	})
	p, waits := formats()[1].open(base + "/v1")
	_, err := p.Stream(context.Background(), Request{Messages: []Message{userText("hi")}}, nil)
	var api *APIError
	if !errors.As(err, &api) || api.Status != 400 || !strings.Contains(api.Message, "longer than the maximum model length of 32768") {
		t.Fatalf("err = %v; want vLLM's 400 and its message", err)
	}
	if host := strings.TrimPrefix(base, "http://"); !strings.Contains(err.Error(), "("+host+" said: The decoder prompt") {
		t.Errorf("error %q does not name the server by its host %s", err, host)
	}
	if hits.Load() != 1 || len(*waits) != 0 {
		t.Errorf("%d requests, %d backoffs; a 400 is not retried", hits.Load(), len(*waits))
	}
	if n, ok := ContextExceeded(err); !ok || n != 32768 {
		t.Errorf("ContextExceeded = %d, %v; want the window 32768 from the message", n, ok)
	}
}
