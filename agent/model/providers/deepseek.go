package providers

// DeepSeek is DeepSeek's own API.
var DeepSeek = &Provider{
	Name: "deepseek", Title: "DeepSeek", Wire: ChatCompletions,
	BaseURL: "https://api.deepseek.com/v1", Hosts: []string{"api.deepseek.com"},
	KeyEnv: "DEEPSEEK_API_KEY", Model: "deepseek-chat",
	Windows: []Window{{"deepseek", 128000}},
	Quirks:  Quirks{ToolCallReasoning: true},
}
