package modeltest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/agentls/agentls/agent/model/providers"
)

// Prompt caching, billed the way each API documents it. Both work on a
// linear view of the request: the tools, then the system prompt, then every
// content block of every message, each a segment of canonical JSON (cache
// markers taken out, so marking a block does not change its bytes). Tokens
// are estimated as bytes/4, as everywhere else in this package.
//
//   - Anthropic caches nothing by itself. A block with "cache_control" is a
//     breakpoint: the prefix up to the end of that block is written to the
//     cache (if it is at least 1024 tokens). A later request reads the
//     longest prefix that ends at one of its block boundaries, at most 20
//     boundaries before one of its breakpoints, that an earlier request
//     wrote. At most 4 breakpoints per request. Usage reports
//     cache_read_input_tokens and cache_creation_input_tokens, and
//     input_tokens is what is left.
//   - OpenAI caches automatically: the longest prefix shared with an earlier
//     request, when it is at least 1024 tokens, in steps of 128 tokens.
//     Usage reports prompt_tokens (all of it) and
//     prompt_tokens_details.cached_tokens.

const (
	cacheMinTokens    = 1024
	openaiCacheStep   = 128
	anthropicLookback = 20
	// MaxCacheControl is the Anthropic API's limit on blocks with
	// cache_control in one request.
	MaxCacheControl = 4
)

// linear is a request's cacheable view.
type linear struct {
	text        []byte
	boundaries  []int // byte offsets where a segment ends, ascending
	breakpoints []int // the boundaries that carry cache_control (Anthropic)
	tools       int   // how many tools the request offered
}

// cacheState is what earlier requests left in the provider's cache.
type cacheState struct {
	anthropic map[prefixKey]bool
	openai    map[prefixKey]bool // prefixes ending at a 128-token step
}

type prefixKey struct {
	hash uint64
	n    int
}

// cacheUsage is what one request read from and wrote to the cache, in tokens.
type cacheUsage struct {
	read, write int
}

func tokensOf(bytes int) int { return bytes / 4 }

// linearize builds the cacheable view of a request body and counts its
// cache_control markers.
func linearize(format providers.Wire, body []byte) (linear, int) {
	var req struct {
		System   json.RawMessage   `json:"system"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Rest    json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	var l linear
	marks := 0
	add := func(raw json.RawMessage) {
		seg, marked := canonical(raw)
		if len(seg) == 0 {
			return
		}
		l.text = append(l.text, seg...)
		l.boundaries = append(l.boundaries, len(l.text))
		if marked {
			marks++
			l.breakpoints = append(l.breakpoints, len(l.text))
		}
	}
	l.tools = len(req.Tools)
	for _, t := range req.Tools {
		add(t)
	}
	if format == providers.Messages {
		var blocks []json.RawMessage
		if json.Unmarshal(req.System, &blocks) == nil {
			for _, b := range blocks {
				add(b)
			}
		} else {
			add(req.System)
		}
	}
	for _, m := range req.Messages {
		add(json.RawMessage(fmt.Sprintf("%q", m.Role)))
		var blocks []json.RawMessage
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				add(b)
			}
		} else {
			add(m.Content)
		}
		if len(m.Rest) > 0 {
			add(m.Rest)
		}
	}
	return l, marks
}

// canonical re-encodes one segment without its cache_control key and says
// whether it had one.
func canonical(raw json.RawMessage) ([]byte, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		_, marked := obj["cache_control"]
		delete(obj, "cache_control")
		b, _ := json.Marshal(obj) // map keys sort: byte-stable for equal content
		return b, marked
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw, false
	}
	b, _ := json.Marshal(v)
	return b, false
}

// bill computes one request's cache read and write and updates the cache.
func (c *cacheState) bill(format providers.Wire, l linear) cacheUsage {
	if format == providers.ChatCompletions {
		return c.billOpenAI(l)
	}
	return c.billAnthropic(l)
}

func (c *cacheState) billAnthropic(l linear) cacheUsage {
	if c.anthropic == nil {
		c.anthropic = map[prefixKey]bool{}
	}
	// Cumulative FNV-1a at each boundary: a prefix's key without rehashing.
	keys := make(map[int]prefixKey, len(l.boundaries))
	h := fnv.New64a()
	prev := 0
	for _, b := range l.boundaries {
		h.Write(l.text[prev:b])
		keys[b] = prefixKey{hash: h.Sum64(), n: b}
		prev = b
	}
	var u cacheUsage
	read := 0
	for _, bp := range l.breakpoints {
		// Look back from the breakpoint over at most 20 boundaries.
		i := indexOf(l.boundaries, bp)
		for j := i; j >= 0 && j > i-anthropicLookback; j-- {
			b := l.boundaries[j]
			if c.anthropic[keys[b]] && b > read {
				read = b
				break
			}
		}
	}
	last := 0
	for _, bp := range l.breakpoints {
		if tokensOf(bp) >= cacheMinTokens {
			c.anthropic[keys[bp]] = true
		}
		last = max(last, bp)
	}
	u.read = tokensOf(read)
	if last > read && tokensOf(last) >= cacheMinTokens {
		u.write = tokensOf(last) - u.read
	}
	return u
}

func (c *cacheState) billOpenAI(l linear) cacheUsage {
	// The read is the longest shared prefix in whole steps of 128 tokens
	// (512 bytes at 4 bytes a token), so only prefixes ending at a step
	// matter: each request leaves the keys of its step prefixes, and the
	// longest of its own found there is what it reads. A request costs its
	// own length, not its length times the requests before it.
	if c.openai == nil {
		c.openai = map[prefixKey]bool{}
	}
	const step = openaiCacheStep * 4
	h := fnv.New64a()
	read := 0
	for n := step; n <= len(l.text); n += step {
		h.Write(l.text[n-step : n])
		k := prefixKey{hash: h.Sum64(), n: n}
		if c.openai[k] && read == n-step {
			read = n
		}
		c.openai[k] = true
	}
	t := tokensOf(read)
	if t < cacheMinTokens {
		return cacheUsage{}
	}
	return cacheUsage{read: t}
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
