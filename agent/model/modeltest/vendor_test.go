package modeltest_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
)

// The vendors the fake plays are rows of the providers' list, by name.
func TestEveryVendorIsAProvider(t *testing.T) {
	for _, v := range modeltest.Vendors {
		if p, ok := providers.Lookup(string(v)); !ok || p.Wire != providers.ChatCompletions {
			t.Errorf("vendor %q is no chat-completions provider of providers.All", v)
		}
	}
}

// streamLines posts an OpenAI request and returns the data lines.
func streamLines(t *testing.T, s *modeltest.Server) []string {
	t.Helper()
	resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"`+strings.Repeat("x", 400)+`"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestMistralStreamsContentParts(t *testing.T) {
	s := modeltest.New(t)
	s.SetVendor(modeltest.Mistral)
	s.Script(modeltest.Turn{Thinking: "Adding.", Text: "Four."})
	all := strings.Join(streamLines(t, s), "\n")
	for _, want := range []string{`"content":[{"thinking":[{"text":"Addi","type":"text"}],"type":"thinking"}]`, `"content":[{"text":"Fou","type":"text"}]`} {
		if !strings.Contains(all, want) {
			t.Errorf("stream lacks %s:\n%s", want, all)
		}
	}
}

func TestVLLMSendsItsOlderMidStreamError(t *testing.T) {
	s := modeltest.New(t)
	s.SetVendor(modeltest.VLLM)
	s.SetLimits(modeltest.Limits{ContextWindow: 50})
	lines := streamLines(t, s)
	if len(lines) != 3 || !strings.HasPrefix(lines[1], `{"code":400,"message":"The decoder prompt (length `) || !strings.Contains(lines[1], `longer than the maximum model length of 50.","object":"error"`) || lines[2] != "[DONE]" {
		t.Errorf("lines %q", lines)
	}
	if s.Pending() != 0 || len(s.ModelRequests("vllm")) != 1 {
		t.Errorf("the refusal is recorded as a model request and uses no turn")
	}
}
