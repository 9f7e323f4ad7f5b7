package providers

// Gemini is Google's OpenAI-compatible endpoint for Gemini models.
var Gemini = &Provider{
	Name: "gemini", Title: "Gemini", Wire: ChatCompletions,
	BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Hosts: []string{"generativelanguage.googleapis.com"},
	KeyEnv: "GEMINI_API_KEY", Model: "gemini-2.5-flash",
	Windows: []Window{{"gemini", 1048576}},
	Vision:  []string{"gemini"},
	Quirks:  Quirks{ToolCallSignature: "skip_thought_signature_validator"},
	// Its function declarations take Gemini's Schema, not JSON Schema.
	ToolSchema: ToolOpenAPISubset,
}
