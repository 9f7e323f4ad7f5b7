package providers

// LlamaCpp is llama.cpp's llama-server (run with --jinja for tool calls).
var LlamaCpp = &Provider{
	Name: "llamacpp", Title: "llama.cpp", Wire: ChatCompletions,
	BaseURL: "http://127.0.0.1:8080/v1", Port: "8080", Local: true,
	AskWindow: []string{"llamacpp-props"},
}
