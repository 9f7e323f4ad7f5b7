package model

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/agentls/agentls/agent/model/providers"
)

// anthropic is the Anthropic Messages client (POST {base}/v1/messages).
type anthropic struct {
	ep        endpoint
	maxTokens int
	tools     toolBlock
	noImages  bool // [model] images = false: tool images are only named
	desc      *providers.Provider
	// thinking is the extended thinking budget in tokens ([model]
	// thinking), 0 when off.
	thinking int
}

// DefaultAnthropicURL is Anthropic's API base URL.
var DefaultAnthropicURL = providers.Anthropic.BaseURL

func newAnthropic(baseURL, model, key, keyEnv string, maxTokens int, client *http.Client) *anthropic {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("Anthropic-Version", "2023-06-01")
	if key != "" {
		h.Set("X-Api-Key", key)
	}
	return &anthropic{
		ep: endpoint{
			provider: serverName(baseURL), url: strings.TrimRight(baseURL, "/") + "/v1/messages",
			model: model, keyEnv: keyEnv, keySent: key != "", header: h, client: noRedirects(client), retry: defaultRetry(),
			message: anthropicMessageJSON,
		},
		maxTokens: maxTokens,
	}
}

// Name is the provider's name ("anthropic" unless a descriptor says otherwise).
func (p *anthropic) Name() string { return p.Descriptor().Name }

// Descriptor is the provider's row of providers.All.
func (p *anthropic) Descriptor() *providers.Provider {
	if p.desc == nil {
		return providers.Anthropic
	}
	return p.desc
}

// Stream sends one Messages request with "stream": true.
func (p *anthropic) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	body, err := p.body(req)
	if err != nil {
		return nil, err
	}
	return p.ep.post(ctx, body, decodeAnthropic, onText, req.OnReasoning)
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// cacheControl marks a prompt-cache breakpoint: the request's prefix up to
// the end of the marked block is cached (Anthropic caches nothing unmarked).
type cacheControl struct {
	Type string `json:"type"` // "ephemeral"
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// Content (tool_result) is a *string, or []anthropicBlock of text and
	// image blocks when the result has images.
	Content   any             `json:"content,omitempty"`
	Source    *anthropicImage `json:"source,omitempty"` // image
	IsError   bool            `json:"is_error,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`

	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// anthropicImage is an image block's source.
type anthropicImage struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

// anthropicRequest is the request object in wire order. body writes its
// three parts itself (joinBody), the tools from the provider's cached block.
type anthropicRequest struct {
	anthropicHead
	Tools []anthropicTool `json:"tools,omitempty"`
	anthropicTail
}

type anthropicHead struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

type anthropicTail struct {
	Stream bool `json:"stream"`
	// Thinking turns extended thinking on. The API then takes no
	// temperature but 1 (agentls sends none) and wants max_tokens above
	// the budget, and the thinking blocks of a tool turn back, signed.
	Thinking *anthropicThinking `json:"thinking,omitempty"`
}

type anthropicThinking struct {
	Type         string `json:"type"` // "enabled"
	BudgetTokens int    `json:"budget_tokens"`
}

// body builds the request JSON. Thinking blocks go back verbatim (the API
// checks their signatures); tool results lead their user message, as the
// API requires.
func (p *anthropic) body(req Request) ([]byte, error) {
	tools, err := p.tools.get(req.Tools, AnthropicToolRules, func(t []ToolDef) error { return checkTools("anthropic", t) }, encodeAnthropicTools)
	if err != nil {
		return nil, err
	}
	out := p.request(req)
	return joinBody(out.anthropicHead, tools, out.anthropicTail)
}

// anthropicTools is the tools array of a request, of definitions already
// translated (ToolRules.Translate). The last tool carries a cache breakpoint: the tools lead the prompt, and
// they change only when a server's listing does.
func anthropicTools(defs []ToolDef) []anthropicTool {
	var out []anthropicTool
	for _, t := range defs {
		out = append(out, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema})
	}
	if len(out) > 0 {
		out[len(out)-1].CacheControl = ephemeral
	}
	return out
}

func encodeAnthropicTools(defs []ToolDef) ([]byte, error) { return json.Marshal(anthropicTools(defs)) }

// request is the request object without its tools.
func (p *anthropic) request(req Request) anthropicRequest {
	var out anthropicRequest
	out.Model, out.MaxTokens, out.Stream = p.ep.model, p.maxTokens, true
	if req.System != "" {
		system := req.System
		out.System = []anthropicBlock{{Type: "text", Text: &system, CacheControl: ephemeral}}
	}
	out.Messages = []anthropicMessage{}
	if req.Model != "" {
		out.Model = req.Model
	}
	if req.MaxTokens > 0 {
		out.MaxTokens = req.MaxTokens
	}
	if p.thinking > 0 {
		// max_tokens counts the thinking too: the answer keeps its own budget.
		out.Thinking = &anthropicThinking{Type: "enabled", BudgetTokens: p.thinking}
		out.MaxTokens += p.thinking
	}
	sieve := newImageSieve(req.Messages, p.noImages)
	ids := newToolIDs(anthropicID, true)
	for _, m := range req.Messages {
		var results, rest []anthropicBlock
		if m.Role == "assistant" {
			ids.turn()
		}
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				if b.Text != "" { // the API rejects empty text blocks
					rest = append(rest, anthropicBlock{Type: "text", Text: &b.Text})
				}
			case "tool_use":
				rest = append(rest, anthropicBlock{Type: "tool_use", ID: ids.call(b.ID), Name: b.Name, Input: objectOrEmpty(b.Input)})
			case "tool_result":
				r := anthropicResult(b, sieve)
				r.ToolUseID = ids.result(b.ToolUseID)
				results = append(results, r)
			case "thinking":
				// Without its signature the API refuses the block (one from
				// another provider, say), and a signature is checked by the
				// endpoint that made it: such a block is dropped rather than
				// fail the turn.
				if b.Signature != "" && p.own(b) {
					rest = append(rest, anthropicBlock{Type: "thinking", Thinking: &b.Thinking, Signature: &b.Signature})
				}
			case "redacted_thinking":
				if p.own(b) {
					rest = append(rest, anthropicBlock{Type: "redacted_thinking", Data: b.Data})
				}
			}
		}
		content := append(results, rest...)
		if len(content) == 0 {
			continue
		}
		out.Messages = append(out.Messages, anthropicMessage{Role: m.Role, Content: content})
	}
	markConversation(out.Messages)
	return out
}

// own reports whether b came from this endpoint (or from a session stored
// before blocks named their endpoint).
func (p *anthropic) own(b Block) bool { return b.Endpoint == "" || b.Endpoint == p.ep.identity() }

// anthropicResult is a tool_result block: its content a string, or, when
// the tool returned images, the text then the images as image blocks.
func anthropicResult(b Block, sieve *imageSieve) anthropicBlock {
	r := anthropicBlock{Type: "tool_result", ToolUseID: b.ToolUseID, IsError: b.IsError}
	images, note := sieve.sift(b)
	content := b.Content + note
	if len(images) == 0 {
		if content != "" { // content is optional; an empty one is refused with is_error
			r.Content = &content
		}
		return r
	}
	var parts []anthropicBlock
	if content != "" {
		parts = append(parts, anthropicBlock{Type: "text", Text: &content})
	}
	for _, im := range images {
		parts = append(parts, anthropicBlock{Type: "image", Source: &anthropicImage{Type: "base64", MediaType: im.MIMEType, Data: im.Data}})
	}
	r.Content = parts
	return r
}

// markConversation puts cache breakpoints on the last two user messages:
// the newest caches the whole conversation for the next request, and the
// one before it is where this request finds what the previous one cached
// (the API looks back only 20 blocks from a breakpoint, and one turn of
// parallel tool results can be more). With the tools and the system
// prompt that is 4 breakpoints, the API's limit.
func markConversation(msgs []anthropicMessage) {
	marked := 0
	for i := len(msgs) - 1; i >= 0 && marked < 2; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		c := msgs[i].Content
		for j := len(c) - 1; j >= 0; j-- {
			if t := c[j].Type; t == "text" || t == "tool_result" || t == "tool_use" {
				c[j].CacheControl = ephemeral
				marked++
				break
			}
		}
	}
}

// objectOrEmpty returns raw when it is a JSON object, else {}. It runs
// on every tool call of the history each request, so it checks without
// decoding: valid JSON whose first byte (after white space) opens an
// object is an object.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(raw) {
		return json.RawMessage(`{}`)
	}
	return raw
}
