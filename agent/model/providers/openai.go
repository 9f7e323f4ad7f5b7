package providers

// OpenAI is OpenAI's own API. A [model] provider = "openai" whose base_url
// is another server's is that server's chat completions endpoint (see
// Detect): the name meant the wire before providers were told apart.
var OpenAI = &Provider{
	Name: "openai", Title: "OpenAI", Wire: ChatCompletions,
	BaseURL: "https://api.openai.com/v1", Hosts: []string{"api.openai.com"},
	KeyEnv: "OPENAI_API_KEY", Model: "gpt-4.1",
	Windows: []Window{
		{"gpt-4.1", 1047576},
		{"gpt-5", 400000},
		{"gpt-4o", 128000},
		{"gpt-4-turbo", 128000},
		{"gpt-4", 8192},
		{"gpt-3.5", 16385},
		{"o1", 200000},
		{"o3", 200000},
		{"o4", 200000},
	},
	Vision:   []string{"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "chatgpt-4o", "o1", "o3", "o4"},
	TextOnly: []string{"o1-mini", "o3-mini", "gpt-4o-audio", "gpt-4o-realtime"},
	Quirks:   Quirks{MaxCompletionTokens: true},
}
