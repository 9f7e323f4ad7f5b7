package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/agentls/agentls/agent/model/providers"
)

// DefaultOpenAIURL is OpenAI's API base URL; compatible servers are
// configured with their own, ending in /v1 (Ollama: http://127.0.0.1:11434/v1).
var DefaultOpenAIURL = providers.OpenAI.BaseURL

// openai is the chat completions client (POST {base}/chat/completions),
// for OpenAI and every compatible server.
type openai struct {
	ep        endpoint
	maxTokens int
	// newTokenField: api.openai.com wants max_completion_tokens (its
	// reasoning models reject max_tokens); compatible servers know
	// max_tokens. An endpoint refusing the one sent switches it once
	// (switchTokenField), unless [model] max_tokens_field fixed it.
	newTokenField atomic.Bool
	tokenFixed    bool
	memory        *Memory
	tools         toolBlock
	noImages      bool // [model] images false (a text-only model): tool images are only named
	echo          echoes
	desc          *providers.Provider
}

func newOpenAI(baseURL, model, key, keyEnv string, maxTokens int, client *http.Client) *openai {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	base := strings.TrimRight(baseURL, "/")
	u, _ := url.Parse(base)
	p := &openai{
		ep: endpoint{
			provider: serverName(base), url: base + "/chat/completions",
			model: model, keyEnv: keyEnv, keySent: key != "", header: h, client: noRedirects(client), retry: defaultRetry(),
			message: openaiCompletionJSON,
		},
		maxTokens: maxTokens,
	}
	p.newTokenField.Store(u != nil && u.Hostname() == "api.openai.com")
	return p
}

// setTokenField applies [model] max_tokens_field ("": chosen per endpoint,
// starting from what memory kept for it).
func (p *openai) setTokenField(configured string, memory *Memory) {
	p.memory = memory
	switch configured {
	case "max_tokens":
		p.newTokenField.Store(false)
		p.tokenFixed = true
	case "max_completion_tokens":
		p.newTokenField.Store(true)
		p.tokenFixed = true
	default:
		switch memory.Get(p.ep.url, p.ep.model).TokenField {
		case "max_tokens":
			p.newTokenField.Store(false)
		case "max_completion_tokens":
			p.newTokenField.Store(true)
		}
	}
}

// switchTokenField reports whether err is the endpoint refusing the
// output-budget field sent ("Unsupported parameter: 'max_tokens' is not
// supported with this model. Use 'max_completion_tokens' instead.", OpenAI's
// reasoning models behind Azure and other fronts), and if so sends the other
// from now on, remembering it for the endpoint and model.
func (p *openai) switchTokenField(err error) bool {
	var api *APIError
	if p.tokenFixed || !errors.As(err, &api) || api.Status != 400 {
		return false
	}
	sent, other := "max_tokens", "max_completion_tokens"
	if p.newTokenField.Load() {
		sent, other = other, sent
	}
	if !strings.Contains(api.Message, "Unsupported parameter: '"+sent+"'") {
		return false
	}
	p.newTokenField.Store(other == "max_completion_tokens")
	p.memory.Update(p.ep.url, p.ep.model, func(r *Remembered) { r.TokenField = other })
	return true
}

// Name is the provider's name ("openai-compatible" unless a descriptor says otherwise).
func (p *openai) Name() string { return p.Descriptor().Name }

// Descriptor is the provider's row of providers.All.
func (p *openai) Descriptor() *providers.Provider {
	if p.desc == nil {
		return providers.Detect(providers.ChatCompletions, p.ep.url)
	}
	return p.desc
}

// Stream sends one chat completions request with "stream": true. An
// endpoint that refuses a field sent back to it (Groq: "property
// 'reasoning' is unsupported") is asked again once without it, and it is
// never sent there again. One refusing the output-budget field sent is
// asked again once with the other (switchTokenField).
func (p *openai) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	switched := false
	for {
		body, err := p.body(req)
		if err != nil {
			return nil, err
		}
		resp, err := p.ep.post(ctx, body, decodeOpenAI, onText, req.OnReasoning)
		if err != nil && p.echo.refused(err, body) {
			continue
		}
		if err != nil && !switched && p.switchTokenField(err) {
			switched = true // once: an endpoint refusing both fields fails as it says
			continue
		}
		return resp, err
	}
}

type openaiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type openaiTool struct {
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	// ExtraContent is what the endpoint attached to the call, sent back
	// as it came (Gemini 3 refuses a call without its thought_signature).
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type openaiMessage struct {
	Role string `json:"role"`
	// Content is a *string, or (a user message carrying tool images)
	// []openaiPart.
	Content any `json:"content"`
	// The assistant's reasoning, sent back in the field it came in to the
	// endpoint that sent it (DeepSeek's thinking mode refuses a tool call
	// message without its reasoning_content).
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"` // OpenRouter: the reasoning's parts, as they came
	ToolCalls        []openaiCall    `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

// openaiPart is one part of a user message's content: text, or an image
// as a data URL.
type openaiPart struct {
	Type     string          `json:"type"` // "text" | "image_url"
	Text     string          `json:"text,omitempty"`
	ImageURL *openaiImageURL `json:"image_url,omitempty"`
}

type openaiImageURL struct {
	URL string `json:"url"`
}

// openaiRequest is the request object in wire order. body writes its three
// parts itself (joinBody), the tools from the provider's cached block.
type openaiRequest struct {
	openaiHead
	Tools []openaiTool `json:"tools,omitempty"`
	openaiTail
}

type openaiHead struct {
	Model    string          `json:"model"`
	Messages []openaiMessage `json:"messages"`
}

type openaiTail struct {
	MaxTokens           int  `json:"max_tokens,omitempty"`
	MaxCompletionTokens int  `json:"max_completion_tokens,omitempty"`
	Stream              bool `json:"stream"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// ErrorPrefix starts the content of a failed tool's result on OpenAI-shaped
// endpoints, which have no error flag on tool messages, unless the content
// already starts with "error:" in any case (see SaysError).
const ErrorPrefix = "Error: "

// SaysError reports whether a tool result's text already marks itself as an
// error ("ERROR: ...", "Error: ...", any case), so no prefix is added.
func SaysError(content string) bool {
	const marker = "error:"
	return len(content) >= len(marker) && strings.EqualFold(content[:len(marker)], marker)
}

// body builds the request JSON: the system prompt as a first system
// message, assistant tool_use blocks as tool_calls (arguments as a JSON
// string), tool_result blocks as "tool" messages right after them.
// Reasoning this endpoint sent goes back in its field; Anthropic's
// thinking blocks and other endpoints' reasoning are dropped.
func (p *openai) body(req Request) ([]byte, error) {
	tools, err := p.tools.get(req.Tools, p.toolRules(req.Model), func(t []ToolDef) error { return checkTools("openai", t) }, encodeOpenAITools)
	if err != nil {
		return nil, err
	}
	out := p.request(req)
	return joinBody(out.openaiHead, tools, out.openaiTail)
}

// toolRules are the rules the tools of a request for model are translated
// by: the descriptor's, or those of the model (a Gemini model through a
// router: providers.ToolSchemaFor).
func (p *openai) toolRules(model string) ToolRules {
	if model == "" {
		model = p.ep.model
	}
	return toolRulesFor(p.Descriptor(), model)
}

// openaiTools is the tools array of a request, of definitions already
// translated (ToolRules.Translate).
func openaiTools(defs []ToolDef) []openaiTool {
	var out []openaiTool
	for _, t := range defs {
		out = append(out, openaiTool{Type: "function", Function: openaiFunction{Name: t.Name, Description: t.Description, Parameters: t.Schema}})
	}
	return out
}

func encodeOpenAITools(defs []ToolDef) ([]byte, error) { return json.Marshal(openaiTools(defs)) }

// request is the request object without its tools.
func (p *openai) request(req Request) openaiRequest {
	var out openaiRequest
	out.Model, out.Stream, out.Messages = p.ep.model, true, []openaiMessage{}
	out.StreamOptions.IncludeUsage = true
	if req.Model != "" {
		out.Model = req.Model
	}
	maxTokens := p.maxTokens
	if req.MaxTokens > 0 {
		maxTokens = req.MaxTokens
	}
	if p.newTokenField.Load() {
		out.MaxCompletionTokens = maxTokens
	} else {
		out.MaxTokens = maxTokens
	}
	if req.System != "" {
		out.Messages = append(out.Messages, openaiMessage{Role: "system", Content: &req.System})
	}
	sieve := newImageSieve(req.Messages, p.noImages)
	quirks := p.Descriptor().Quirks
	ids := newToolIDs(openaiID, false)
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			ids.turn()
		}
		var texts []string
		var calls []openaiCall
		var results []openaiMessage
		var images []openaiPart
		var reasoning reasoningEcho
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				if b.Text != "" {
					texts = append(texts, b.Text)
				}
			case "thinking":
				if b.Endpoint == p.ep.identity() && !quirks.NoReasoningEcho {
					reasoning.add(b, &p.echo)
				}
			case "tool_use":
				c := openaiCall{ID: ids.call(b.ID), Type: "function"}
				c.Function.Name = b.Name
				c.Function.Arguments = string(objectOrEmpty(b.Input))
				if len(b.Extra) > 0 && b.Endpoint == p.ep.identity() && p.echo.sends("extra_content") {
					c.ExtraContent = b.Extra
				} else if quirks.ToolCallSignature != "" && p.echo.sends("extra_content") {
					c.ExtraContent = googleSignature(quirks.ToolCallSignature)
				}
				calls = append(calls, c)
			case "tool_result":
				sent, note := sieve.sift(b)
				content := b.Content + note
				if b.IsError && !SaysError(content) {
					content = ErrorPrefix + content
				}
				id := ids.result(b.ToolUseID)
				results = append(results, openaiMessage{Role: "tool", ToolCallID: id, Content: &content})
				images = append(images, openaiImages(id, sent)...)
			}
		}
		// Tool messages must directly follow the assistant's tool_calls.
		out.Messages = append(out.Messages, results...)
		if len(images) > 0 {
			// A tool message takes text only: the images follow in one
			// user message, with the user's own text, if any, after them.
			if len(texts) > 0 {
				images = append(images, openaiPart{Type: "text", Text: strings.Join(texts, "\n\n")})
			}
			out.Messages = append(out.Messages, openaiMessage{Role: "user", Content: images})
			texts = nil
		}
		if len(texts) == 0 && len(calls) == 0 {
			continue
		}
		msg := openaiMessage{Role: m.Role, ToolCalls: calls}
		if m.Role == "assistant" {
			msg.ReasoningContent, msg.Reasoning = reasoning.fields()
			msg.ReasoningDetails = reasoning.detailsField()
			if quirks.ToolCallReasoning && len(calls) > 0 && msg.ReasoningContent == nil && p.echo.sends("reasoning_content") {
				msg.ReasoningContent = new(string)
			}
		}
		if len(texts) > 0 {
			s := strings.Join(texts, "\n\n")
			msg.Content = &s
		}
		if msg.Content == nil && m.Role != "assistant" {
			continue
		}
		out.Messages = append(out.Messages, msg)
	}
	return out
}

// openaiImages are the parts that carry a tool result's images: a line
// saying which call they came from, then each as a data URL.
func openaiImages(id string, images []Image) []openaiPart {
	if len(images) == 0 {
		return nil
	}
	parts := []openaiPart{{Type: "text", Text: fmt.Sprintf("The images returned by tool call %s:", id)}}
	for _, im := range images {
		parts = append(parts, openaiPart{Type: "image_url", ImageURL: &openaiImageURL{URL: "data:" + im.MIMEType + ";base64," + im.Data}})
	}
	return parts
}
