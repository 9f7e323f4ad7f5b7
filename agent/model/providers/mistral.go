package providers

// Mistral is Mistral AI's own API.
var Mistral = &Provider{
	Name: "mistral", Title: "Mistral", Wire: ChatCompletions,
	BaseURL: "https://api.mistral.ai/v1", Hosts: []string{"api.mistral.ai"},
	KeyEnv: "MISTRAL_API_KEY", Model: "mistral-large-latest",
	Windows: []Window{{"mistral", 32768}, {"mixtral", 32768}, {"codestral", 32768}},
	Vision:  []string{"mistral-small3.1", "pixtral"},
}
