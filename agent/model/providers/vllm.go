package providers

// VLLM is a vLLM server's OpenAI-compatible endpoint.
var VLLM = &Provider{
	Name: "vllm", Title: "vLLM", Wire: ChatCompletions,
	BaseURL: "http://127.0.0.1:8000/v1", Port: "8000", Local: true,
	AskWindow: []string{"vllm-models"},
}
