package providers

// Compatible is any other server speaking OpenAI's chat completions: the
// provider of a base_url no descriptor recognises.
var Compatible = &Provider{
	Name: "openai-compatible", Title: "OpenAI-compatible server", Wire: ChatCompletions,
	// An unknown server is asked the ways of the local servers whose
	// question no OpenAI-compatible server answers by mistake (vLLM's
	// /v1/models is every server's model list: provider = "vllm" asks it).
	AskWindow: []string{"llamacpp-props", "ollama-show", "lmstudio-models"},
}
