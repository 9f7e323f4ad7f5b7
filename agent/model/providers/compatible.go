package providers

// Compatible is any other server speaking OpenAI's chat completions: the
// provider of a base_url no descriptor recognises.
var Compatible = &Provider{
	Name: "openai-compatible", Title: "OpenAI-compatible server", Wire: ChatCompletions,
}
