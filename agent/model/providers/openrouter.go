package providers

// OpenRouter routes to many vendors' models, named "vendor/model".
var OpenRouter = &Provider{
	Name: "openrouter", Title: "OpenRouter", Wire: ChatCompletions,
	BaseURL: "https://openrouter.ai/api/v1", Hosts: []string{"openrouter.ai"},
	KeyEnv:    "OPENROUTER_API_KEY",
	AskWindow: []string{"openrouter-models"},
}
