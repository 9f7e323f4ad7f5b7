// Package providers describes every model provider agentls knows, one
// descriptor each: its name in [model] provider, the wire format it speaks,
// its defaults (base URL, key variable, model), how to recognise its
// endpoint, the context windows and vision support of the models it makes,
// its tool limit, and its quirks. Adding a provider is one file holding its
// descriptor and one row in All; adding a wire format is one row in Wires
// (and its client in package model and its fake in modeltest, both keyed by
// that row).
//
// It imports nothing of agentls, so config, model and modeltest all read the
// same list.
package providers

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// Wire names a wire format: how a request is encoded and an answer
// streamed. A vendor is not a wire: OpenAI's chat completions format is
// spoken by Ollama, llama.cpp, vLLM and most others.
type Wire string

// The wire formats agentls speaks.
const (
	// Messages is Anthropic's Messages API (POST {base}/v1/messages).
	Messages Wire = "anthropic-messages"
	// ChatCompletions is OpenAI's chat completions API (POST
	// {base}/chat/completions, base usually ending in /v1).
	ChatCompletions Wire = "chat-completions"
)

// WireSpec is what a wire format fixes for every provider speaking it.
type WireSpec struct {
	Wire Wire
	// Path is the request path on a server whose base URL is its root
	// (the fake model in modeltest answers it).
	Path string
	// MaxTools is the most tools one request may carry (0: no limit agentls
	// reaches before its token budget); a descriptor's MaxTools overrides.
	MaxTools int
}

// Wires lists every wire format, one row each.
var Wires = []WireSpec{
	{Wire: Messages, Path: "/v1/messages"},
	// The chat completions API refuses more than 128 tools ("Invalid
	// 'tools': array too long"); compatible servers are held to it too.
	{Wire: ChatCompletions, Path: "/v1/chat/completions", MaxTools: 128},
}

// SpecOf is the row of Wires for w (the zero WireSpec when none).
func SpecOf(w Wire) WireSpec {
	for _, s := range Wires {
		if s.Wire == w {
			return s
		}
	}
	return WireSpec{}
}

// Window is a context window of the models whose names start with Prefix
// (lower case, a vendor's "org/" prefix skipped).
type Window struct {
	Prefix string
	Tokens int
}

// Provider describes one provider. Only Name and Wire are required.
type Provider struct {
	// Name is its [model] provider value and how agentls names it.
	Name string
	// Title is how a person knows it ("llama.cpp", "DeepSeek").
	Title string
	Wire  Wire
	// BaseURL is the base URL used when [model] base_url is not set
	// ("": the user must set one).
	BaseURL string
	// Hosts are the host names of its own API: a base URL on one of them
	// is recognised as this provider, and KeyEnv is read by default only
	// for them, so a key never goes by default to a third-party endpoint.
	Hosts []string
	// Port is the port its local server listens on by default: a base URL
	// on this machine with that port is recognised as this provider.
	Port string
	// KeyEnv is the variable holding its API key ("" = no key by default).
	KeyEnv string
	// KeyForAnyBaseURL: KeyEnv is read for a base_url set with this
	// provider named, off its Hosts too (a gateway in front of it).
	KeyForAnyBaseURL bool
	// Model is the model used when [model] name is not set ("": it must be set).
	Model string
	// Local is true for a server that runs on the user's machine (it
	// needs no key, and the model it serves is the user's choice).
	Local bool

	// Windows are the context windows of the models it makes, most
	// specific prefix first.
	Windows []Window
	// Vision lists model-name prefixes of its models that take images;
	// TextOnly prefixes are exceptions among them. AllVision: every model
	// it serves takes images.
	Vision, TextOnly []string
	AllVision        bool

	// MaxTools is the most tools one request may carry (0: the wire's).
	MaxTools int
	// ToolSchema is the rules its tool definitions' input schemas are held
	// to (ToolJSONSchema: its wire's reference's).
	ToolSchema ToolSchema

	// AskWindow names how its server says the context window it runs the
	// model with (package model's windowProbes: "llamacpp-props",
	// "ollama-show", "vllm-models", "lmstudio-models", "openrouter-models");
	// empty: it is not asked (its models' windows are in the tables).
	AskWindow []string

	// Quirks are what it does differently from its wire's reference.
	Quirks Quirks
}

// Quirks are a provider's departures from its wire format's reference
// (Anthropic for Messages, OpenAI for chat completions).
type Quirks struct {
	// MaxCompletionTokens: the output budget goes in max_completion_tokens,
	// not max_tokens (OpenAI's reasoning models refuse max_tokens).
	MaxCompletionTokens bool
	// NoReasoningEcho: it streams its reasoning but refuses it sent back on
	// an assistant message (Groq: "property 'reasoning' is unsupported"),
	// so agentls never sends it there. Other endpoints get their reasoning
	// back in the field it came in (DeepSeek's thinking mode refuses a tool
	// call message without its reasoning_content); one that refuses it
	// anyway is asked again without it, once.
	NoReasoningEcho bool
	// ToolCallReasoning: every assistant message with tool calls must
	// carry reasoning_content (DeepSeek's thinking mode: 400 "The
	// reasoning_content in the thinking mode must be passed back to the
	// API"); one that has none kept (a turn it did not think in, a session
	// begun elsewhere) is sent with an empty one rather than fail every
	// later request of the session.
	ToolCallReasoning bool
	// ToolCallSignature is the thought signature sent with a tool call that
	// has none from this endpoint (a session begun elsewhere): Gemini 3
	// refuses such a call ("Function call is missing a thought_signature")
	// and documents this value as the one that skips the check.
	ToolCallSignature string
}

// ToolSchema names the rules a provider holds tool input schemas to; the
// model package translates every schema to them (ToolRules).
type ToolSchema string

const (
	// ToolJSONSchema is JSON Schema as the wire's reference takes it:
	// Anthropic's input_schema, OpenAI's function parameters.
	ToolJSONSchema ToolSchema = ""
	// ToolOpenAPISubset is Gemini's Schema, a subset of OpenAPI 3.0: no
	// $ref, const, oneOf, additionalProperties or type lists, and string
	// formats only enum and date-time.
	ToolOpenAPISubset ToolSchema = "openapi-subset"
)

// ToolSchemaFor is the rules the tools of a request to p for the model
// named name are held to: p's own, or, for a model Google makes
// ("gemini-2.5-flash", "google/gemini-2.5-pro" through a router or a
// gateway), Gemini's, which that model reads wherever it is served. p may
// be nil.
func ToolSchemaFor(p *Provider, name string) ToolSchema {
	if p != nil && p.ToolSchema != ToolJSONSchema {
		return p.ToolSchema
	}
	if p != nil && p.Wire == Messages {
		return ToolJSONSchema
	}
	if strings.HasPrefix(modelKey(name), "gemini") {
		return Gemini.ToolSchema
	}
	return ToolJSONSchema
}

// All lists every provider, one row each. Order matters where two could
// claim an endpoint: the first match wins.
var All = []*Provider{
	Anthropic,
	OpenAI,
	Ollama,
	LlamaCpp,
	VLLM,
	LMStudio,
	OpenRouter,
	DeepSeek,
	Gemini,
	Groq,
	Mistral,
	Compatible,
}

// Lookup finds the provider a [model] provider value names ("" and false
// when none does); case and surrounding space are ignored.
func Lookup(name string) (*Provider, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, p := range All {
		if p.Name == n {
			return p, true
		}
	}
	return nil, false
}

// Names are the accepted [model] provider values, in All's order.
func Names() []string {
	out := make([]string, 0, len(All))
	for _, p := range All {
		out = append(out, p.Name)
	}
	return out
}

// Quoted is Names as `"a", "b" or "c"`, for error messages.
func Quoted() string {
	names := Names()
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// Detect is the provider of wire w whose endpoint base is: one whose Hosts
// hold its host, else, on this machine, one whose Port it listens on, else
// the wire's generic provider (Compatible for chat completions, Anthropic
// for Messages).
func Detect(w Wire, base string) *Provider {
	host, port := hostPort(base)
	for _, p := range All {
		if p.Wire == w && slices.Contains(p.Hosts, host) {
			return p
		}
	}
	if IsLocal(base) {
		for _, p := range All {
			if p.Wire == w && p.Port != "" && p.Port == port {
				return p
			}
		}
	}
	if w == Messages {
		return Anthropic
	}
	return Compatible
}

// OwnsHost reports whether base is on one of p's own API hosts.
func (p *Provider) OwnsHost(base string) bool {
	host, _ := hostPort(base)
	return host != "" && slices.Contains(p.Hosts, host)
}

// MaxToolsFor is the most tools one request to p may offer: configured
// when set (> 0), else p's limit, else its wire's (0: none).
func (p *Provider) MaxToolsFor(configured int) int {
	switch {
	case configured > 0:
		return configured
	case p.MaxTools > 0:
		return p.MaxTools
	}
	return SpecOf(p.Wire).MaxTools
}

// DefaultContextWindow is the window of a model no table knows: small,
// because a local model's server often runs with less than its model could
// take, and a window guessed too large fails mid-task.
const DefaultContextWindow = 8192

// ContextWindowFor is the window of the model named name: configured when
// set (> 0), else the window of the first table (p's own, then every
// provider's, then the open-weight Families) with a prefix of the name, else
// DefaultContextWindow. A vendor prefix like "openai/" (OpenRouter's
// names) is skipped. p may be nil.
func ContextWindowFor(p *Provider, configured int, name string) int {
	if configured > 0 {
		return configured
	}
	if n, ok := KnownWindow(p, name); ok {
		return n
	}
	return DefaultContextWindow
}

// KnownWindow is the window the tables give the model named name, and
// whether any does.
func KnownWindow(p *Provider, name string) (int, bool) {
	n := modelKey(name)
	tables := [][]Window{}
	if p != nil {
		tables = append(tables, p.Windows)
	}
	for _, q := range All {
		tables = append(tables, q.Windows)
	}
	tables = append(tables, Families)
	for _, t := range tables {
		for _, w := range t {
			if strings.HasPrefix(n, w.Prefix) {
				return w.Tokens, true
			}
		}
	}
	return 0, false
}

// ImagesFor says whether the model named name, reached through p, is shown
// the images tools return: configured when set, else yes when p's models
// all take images, else whether a vision table (p's, every provider's, the
// open-weight families') lists the name and no text-only one does. A model
// that is not shown an image still reads the line naming it.
func ImagesFor(p *Provider, configured *bool, name string) bool {
	if configured != nil {
		return *configured
	}
	if p != nil && p.AllVision {
		return true
	}
	n := modelKey(name)
	var vision, textOnly []string
	for _, q := range All {
		vision = append(vision, q.Vision...)
		textOnly = append(textOnly, q.TextOnly...)
	}
	vision = append(vision, FamilyVision...)
	for _, pre := range textOnly {
		if strings.HasPrefix(n, pre) {
			return false
		}
	}
	for _, pre := range vision {
		if strings.HasPrefix(n, pre) {
			return true
		}
	}
	return false
}

// modelKey is a model name as the tables match it: lower case, without a
// vendor's "org/" prefix.
func modelKey(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndex(n, "/"); i >= 0 {
		n = n[i+1:]
	}
	return n
}

// IsLocal reports whether a base URL names this machine.
func IsLocal(base string) bool {
	h, _ := hostPort(base)
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func hostPort(base string) (host, port string) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", ""
	}
	return strings.ToLower(u.Hostname()), u.Port()
}
