// Package model holds agentls's own small clients for the two model wire
// formats (Anthropic Messages and OpenAI chat completions), both streaming
// with tool calls, behind one Provider interface, and the choice of model
// from the [model] table (Resolve, New).
//
// It never reads the environment by itself (callers pass getenv and the
// key), never sends a key anywhere but the configured endpoint (no
// redirects followed, OPENAI_API_KEY only to OpenAI), never lets a tool
// name outside the providers' common rule reach the wire, and never retries
// once text has reached the caller.
package model

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/agent/model/providers"
)

// Block is one content block of a message, in a provider-neutral shape.
type Block struct {
	Type string `json:"type"` // "text" | "tool_use" | "tool_result" | "thinking" | "redacted_thinking"

	Text string `json:"text,omitempty"` // text

	ID    string          `json:"id,omitempty"`    // tool_use
	Name  string          `json:"name,omitempty"`  // tool_use
	Input json.RawMessage `json:"input,omitempty"` // tool_use: a JSON object
	// InvalidInput (tool_use) holds the arguments as the model sent them when
	// they were not a JSON object; Input is then {}. The caller should answer
	// with an error tool_result rather than run the tool.
	InvalidInput string `json:"invalidInput,omitempty"`

	ToolUseID string `json:"toolUseId,omitempty"` // tool_result
	Content   string `json:"content,omitempty"`   // tool_result
	IsError   bool   `json:"isError,omitempty"`   // tool_result
	// Images (tool_result) are images the tool returned, sent to the model
	// after Content, which names each one ("[image: image/png, 3 KB]") so a
	// reader of the text alone knows they were there.
	Images []Image `json:"images,omitempty"`

	Thinking  string `json:"thinking,omitempty"`  // thinking (echoed back verbatim)
	Signature string `json:"signature,omitempty"` // thinking
	Data      string `json:"data,omitempty"`      // redacted_thinking

	// Field (thinking) is the field of an OpenAI-compatible answer the
	// reasoning came in ("reasoning_content": DeepSeek, Qwen, vLLM,
	// llama.cpp; "reasoning": OpenRouter, Groq, Ollama), the field it is
	// sent back in; "" for Anthropic's thinking blocks.
	Field string `json:"field,omitempty"`
	// Extra (tool_use) is what the provider attached to a tool call besides
	// its id, name and arguments, as it came: Gemini's
	// {"google": {"thought_signature": ...}} (OpenAI wire extra_content).
	// On a thinking block it is the message's reasoning_details
	// (OpenRouter: the reasoning's parts, signatures and encrypted data).
	Extra json.RawMessage `json:"extra,omitempty"`
	// Endpoint (thinking, redacted_thinking, tool_use) is the URL of the
	// endpoint that produced the block. What a provider attached to it
	// (reasoning, signatures, Extra) is sent back to that endpoint only: a
	// signature means nothing to another, and strict servers refuse fields
	// they do not know. "" (sessions stored before it was kept): Anthropic
	// thinking with a signature is echoed on the Anthropic wire, as before.
	Endpoint string `json:"endpoint,omitempty"`
}

// Image is an image in a tool result, as both APIs take it: a type among
// image/png, image/jpeg, image/gif, image/webp and the bytes in standard
// padded base64.
type Image struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
	// Width and Height are its size in pixels when known (0 otherwise),
	// for the estimate of what it costs (ImageTokens).
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// ImageTokens estimates what an image costs the model: Anthropic's rule,
// width*height/750, for an image the API scales to at most about 1.15
// megapixels (1568 px on the long edge), which makes MaxImageTokens the
// most; an image of unknown size counts as the most. OpenAI's tile count
// for a detailed image of the same size is lower, so the estimate errs on
// the side of compacting early.
func (im Image) ImageTokens() int {
	if im.Width <= 0 || im.Height <= 0 {
		return MaxImageTokens
	}
	return min(im.Width*im.Height/750+1, MaxImageTokens)
}

// MaxImageTokens is the most one image costs by ImageTokens.
const MaxImageTokens = 1600

// Message is one turn of the conversation.
type Message struct {
	Role    string  `json:"role"` // "user" | "assistant"
	Content []Block `json:"content"`
	// Interrupted, on a stored assistant message, says its turn ended
	// before the answer was whole, and why: "cancelled", "error",
	// "stopped" (agentls itself stopped: a crash, a kill), "max_tokens"
	// (the output budget ran out) or "refused" (the model declined; its
	// answer is not kept). Content is then
	// what had streamed, possibly nothing. The providers' encoders never
	// send it; the agent says it to the model in the message's text.
	Interrupted string `json:"interrupted,omitempty"`
}

// ToolDef is a tool offered to the model. Schema is its JSON Schema as its
// author wrote it; each provider's request carries it translated to what
// that provider accepts (ToolRules), and the tool gets the model's
// arguments untranslated.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one model call.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int
	// OnReasoning, when set, receives the model's reasoning as it streams
	// (Anthropic thinking, reasoning_content or reasoning deltas), for the
	// fronts to show folded and marked, never as the answer. Like text, it
	// counts as streamed: a request is not retried once some was passed on.
	OnReasoning func(delta string)
}

// Usage counts tokens as the provider reported them. InputTokens counts
// every input token, cached ones included; CacheReadTokens and
// CacheWriteTokens are the parts of it read from and written to the
// provider's prompt cache.
type Usage struct {
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int `json:"cacheWriteTokens,omitempty"`
}

// Response is the assistant message a call produced.
type Response struct {
	Content []Block
	// StopReason is "end_turn", "tool_use", "max_tokens" (the answer was
	// cut at the request's token budget), "refusal" (the model declined:
	// Anthropic's stop_reason, OpenAI's delta.refusal, whose text is the
	// answer's text), or the provider's own otherwise (OpenAI's
	// "content_filter").
	StopReason string
	Usage      Usage
}

// Provider streams one model call. onText receives text deltas as they
// arrive; the returned Response holds the whole assistant message. Errors
// say what a person can do about them.
type Provider interface {
	Name() string
	// Descriptor is the provider's row of providers.All: its defaults,
	// tables, limits and quirks.
	Descriptor() *providers.Provider
	Stream(ctx context.Context, req Request, onText func(delta string)) (*Response, error)
}
