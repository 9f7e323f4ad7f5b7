package config

import "strings"

// Context windows and tool limits. The loop compacts a session before a
// request would pass 75% of the window, and offers at most the provider's
// tool limit (searching the rest): both need the window of the model in use,
// which [model] context_window sets and these defaults guess from its name.
const (
	// DefaultContextWindow is the window of a model this table does not
	// know: small, because a local model's server often runs with less than
	// its model could take, and a window guessed too large fails mid-task.
	DefaultContextWindow = 8192
	// DefaultOpenAIMaxTools is the OpenAI chat completions API's limit on
	// tools in one request ("Invalid 'tools': array too long" above it).
	DefaultOpenAIMaxTools = 128
	// DefaultToolBudgetShare is the share of the context window the MCP
	// tool definitions of one request may take before agentls offers a tool
	// search instead of every tool ([mcp] tool_budget_tokens overrides).
	DefaultToolBudgetShare = 0.2
)

// contextWindows maps model-name prefixes (lower case) to their windows,
// most specific first.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"claude", 200000},
	{"gpt-4.1", 1047576},
	{"gpt-5", 400000},
	{"gpt-4o", 128000},
	{"gpt-4-turbo", 128000},
	{"gpt-4", 8192},
	{"gpt-3.5", 16385},
	{"o1", 200000},
	{"o3", 200000},
	{"o4", 200000},
	{"gemini", 1048576},
	{"deepseek", 128000},
	{"qwen2.5-coder", 32768},
	{"qwen3", 32768},
	{"qwen", 32768},
	{"llama3.1", 131072},
	{"llama3.2", 131072},
	{"llama3.3", 131072},
	{"llama3", 8192},
	{"codellama", 16384},
	{"mistral", 32768},
	{"mixtral", 32768},
	{"codestral", 32768},
	{"phi", 16384},
	{"gemma", 8192},
}

// ContextWindowFor is the window of the model named name: [model]
// context_window when set (configured > 0), else the known family's, else
// DefaultContextWindow. A provider prefix like "openai/" or "anthropic/"
// (OpenRouter's names) is skipped.
func ContextWindowFor(configured int, name string) int {
	if configured > 0 {
		return configured
	}
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndex(n, "/"); i >= 0 {
		n = n[i+1:]
	}
	for _, w := range contextWindows {
		if strings.HasPrefix(n, w.prefix) {
			return w.tokens
		}
	}
	return DefaultContextWindow
}

// MaxToolsFor is how many tools one request may offer: [model] max_tools
// when set, else the OpenAI API's limit on the OpenAI wire, else 0 (no
// limit: Anthropic's API has none that agentls reaches before the token
// budget).
func MaxToolsFor(configured int, provider string) int {
	if configured > 0 {
		return configured
	}
	if provider == "openai" {
		return DefaultOpenAIMaxTools
	}
	return 0
}

// ToolBudgetFor is the tokens of MCP tool definitions one request may
// carry before agentls switches to tool search: [mcp] tool_budget_tokens
// when set, else DefaultToolBudgetShare of the window.
func ToolBudgetFor(configured, window int) int {
	if configured > 0 {
		return configured
	}
	return int(float64(window) * DefaultToolBudgetShare)
}

// imageModels are the model-name prefixes (lower case, as contextWindows)
// of models that take images, for ImagesFor. On the OpenAI wire a model
// not listed is sent none: a text-only model behind an OpenAI-compatible
// server may refuse a request with an image in it, which would fail every
// later turn of the session.
var imageModels = []string{
	"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "chatgpt-4o", "o1", "o3", "o4",
	"gemini", "llava", "bakllava", "llama3.2-vision", "llama4", "qwen2.5vl", "qwen2.5-vl", "qwen2-vl", "qwen-vl",
	"gemma3", "minicpm-v", "moondream", "mistral-small3.1", "pixtral",
}

// textOnlyModels are exceptions to imageModels: prefixes of models that
// take no images.
var textOnlyModels = []string{"o1-mini", "o3-mini", "gpt-4o-audio", "gpt-4o-realtime"}

// ImagesFor says whether the model named name is shown the images tools
// return: [model] images when set, else yes for Anthropic (every Claude
// model agentls can reach takes images), else whether the name is a known
// vision model's. A model that is not shown an image still reads the line
// naming it.
func ImagesFor(configured *bool, provider, name string) bool {
	if configured != nil {
		return *configured
	}
	if provider == "anthropic" {
		return true
	}
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndex(n, "/"); i >= 0 {
		n = n[i+1:]
	}
	for _, p := range textOnlyModels {
		if strings.HasPrefix(n, p) {
			return false
		}
	}
	for _, p := range imageModels {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
