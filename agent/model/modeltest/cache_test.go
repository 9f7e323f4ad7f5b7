package modeltest_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// cachedAnthropicBody is a Messages request with a system prompt of about
// systemTokens tokens and the given user texts, marking the blocks listed.
func cachedAnthropicBody(systemTokens int, mark map[int]bool, texts ...string) string {
	sys := map[string]any{"type": "text", "text": strings.Repeat("abcd", systemTokens)}
	if mark[-1] {
		sys["cache_control"] = map[string]any{"type": "ephemeral"}
	}
	var msgs []any
	for i, tx := range texts {
		b := map[string]any{"type": "text", "text": tx}
		if mark[i] {
			b["cache_control"] = map[string]any{"type": "ephemeral"}
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]any{"role": role, "content": []any{b}})
	}
	raw, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "system": []any{sys}, "messages": msgs})
	return string(raw)
}

func usageOf(t *testing.T, s *modeltest.Server, path, body string) map[string]any {
	t.Helper()
	s.Script(modeltest.Turn{Text: "ok"})
	resp := post(t, context.Background(), s.URL()+path, body)
	raw, _ := io.ReadAll(resp.Body)
	var m struct {
		Usage map[string]any `json:"usage"`
		Error any            `json:"error"`
	}
	json.Unmarshal(raw, &m)
	if m.Usage == nil {
		t.Fatalf("no usage in %s", raw)
	}
	return m.Usage
}

func TestAnthropicCachesOnlyMarkedPrefixes(t *testing.T) {
	s := modeltest.New(t)
	// Unmarked: the same 2000-token prefix twice is never cached.
	for i := 0; i < 2; i++ {
		u := usageOf(t, s, "/v1/messages", cachedAnthropicBody(2000, nil, "hi"))
		if u["cache_read_input_tokens"] != 0.0 || u["cache_creation_input_tokens"] != 0.0 {
			t.Fatalf("unmarked request %d used the cache: %v", i, u)
		}
	}
	// Marked system: the first writes, the second reads the same prefix.
	u1 := usageOf(t, s, "/v1/messages", cachedAnthropicBody(2000, map[int]bool{-1: true}, "one"))
	u2 := usageOf(t, s, "/v1/messages", cachedAnthropicBody(2000, map[int]bool{-1: true}, "two"))
	if u1["cache_creation_input_tokens"].(float64) < 1900 || u1["cache_read_input_tokens"] != 0.0 {
		t.Errorf("first marked request: %v", u1)
	}
	if u2["cache_read_input_tokens"].(float64) < 1900 || u2["cache_creation_input_tokens"] != 0.0 {
		t.Errorf("second marked request: %v", u2)
	}
	// Below 1024 tokens nothing is cached.
	usageOf(t, s, "/v1/messages", cachedAnthropicBody(500, map[int]bool{-1: true}, "x"))
	u3 := usageOf(t, s, "/v1/messages", cachedAnthropicBody(500, map[int]bool{-1: true}, "y"))
	if u3["cache_read_input_tokens"] != 0.0 {
		t.Errorf("a 500-token prefix was cached: %v", u3)
	}
	// A conversation: request 2 finds request 1's breakpoint by looking back.
	long := strings.Repeat("word ", 1000)
	usageOf(t, s, "/v1/messages", cachedAnthropicBody(10, map[int]bool{0: true}, long))
	u4 := usageOf(t, s, "/v1/messages", cachedAnthropicBody(10, map[int]bool{2: true}, long, "answer", "next"))
	if u4["cache_read_input_tokens"].(float64) < 1200 {
		t.Errorf("the earlier breakpoint was not found by looking back: %v", u4)
	}
}

func TestAnthropicRefusesAFifthCacheControl(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "never"})
	resp := post(t, context.Background(), s.URL()+"/v1/messages",
		cachedAnthropicBody(10, map[int]bool{-1: true, 0: true, 1: true, 2: true, 3: true}, "a", "b", "c", "d"))
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(raw), "A maximum of 4 blocks with cache_control") {
		t.Errorf("%d %s", resp.StatusCode, raw)
	}
	if s.Pending() != 1 {
		t.Errorf("a refused request used up a scripted turn")
	}
}

func cachedOpenAIBody(prefix, tail string) string {
	raw, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "system", "content": prefix}, map[string]any{"role": "user", "content": tail}}})
	return string(raw)
}

func TestOpenAICachesSharedPrefixesIn128TokenSteps(t *testing.T) {
	s := modeltest.New(t)
	p := strings.Repeat("abcd", 3000)
	usageOf(t, s, "/v1/chat/completions", cachedOpenAIBody(p, "one"))
	u := usageOf(t, s, "/v1/chat/completions", cachedOpenAIBody(p, "two"))
	cached := u["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64)
	if cached < 2900 || int(cached)%128 != 0 {
		t.Errorf("cached %v, want the ~3000-token shared prefix in 128-token steps", cached)
	}
	short := strings.Repeat("abcd", 500)
	usageOf(t, s, "/v1/chat/completions", cachedOpenAIBody(short, "x"))
	u = usageOf(t, s, "/v1/chat/completions", cachedOpenAIBody(short+"!", "y"))
	if c := u["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64); c != 0 {
		t.Errorf("a 500-token prefix was cached: %v", c)
	}
}

func TestLimitsRefuseLikeTheAPIs(t *testing.T) {
	s := modeltest.New(t)
	s.SetLimits(modeltest.Limits{ContextWindow: 1000, MaxTools: 2})
	s.Script(modeltest.Turn{Text: "never"})
	cases := []struct{ path, body, want string }{
		{"/v1/messages", cachedAnthropicBody(2000, nil, "hi"), "prompt is too long"},
		{"/v1/chat/completions", cachedOpenAIBody(strings.Repeat("abcd", 2000), "hi"), "context_length_exceeded"},
		{"/v1/chat/completions", `{"model":"m","messages":[],"tools":[{},{},{}]}`, "array too long"},
	}
	for _, c := range cases {
		resp := post(t, context.Background(), s.URL()+c.path, c.body)
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(raw), c.want) {
			t.Errorf("%s: %d %s, want 400 saying %q", c.path, resp.StatusCode, raw, c.want)
		}
	}
	if s.Pending() != 1 {
		t.Errorf("refused requests used up scripted turns")
	}
}
