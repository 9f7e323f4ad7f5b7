package providers

// Ollama is a local Ollama server's OpenAI-compatible endpoint.
var Ollama = &Provider{
	Name: "ollama", Title: "Ollama", Wire: ChatCompletions,
	BaseURL: "http://127.0.0.1:11434/v1", Port: "11434", Local: true,
	Model:     "qwen2.5-coder",
	AskWindow: []string{"ollama-show"},
}
