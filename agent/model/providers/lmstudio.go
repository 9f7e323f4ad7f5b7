package providers

// LMStudio is LM Studio's local server.
var LMStudio = &Provider{
	Name: "lmstudio", Title: "LM Studio", Wire: ChatCompletions,
	BaseURL: "http://127.0.0.1:1234/v1", Port: "1234", Local: true,
	AskWindow: []string{"lmstudio-models"},
}
