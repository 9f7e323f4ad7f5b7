package providers

// Groq is Groq's OpenAI-compatible API.
var Groq = &Provider{
	Name: "groq", Title: "Groq", Wire: ChatCompletions,
	BaseURL: "https://api.groq.com/openai/v1", Hosts: []string{"api.groq.com"},
	KeyEnv: "GROQ_API_KEY",
	Quirks: Quirks{NoReasoningEcho: true},
}
