package providers

// Anthropic is Claude through Anthropic's own API.
var Anthropic = &Provider{
	Name: "anthropic", Title: "Anthropic", Wire: Messages,
	BaseURL: "https://api.anthropic.com", Hosts: []string{"api.anthropic.com"},
	KeyEnv: "ANTHROPIC_API_KEY", KeyForAnyBaseURL: true, Model: "claude-sonnet-4-5",
	Windows:   []Window{{"claude", 200000}},
	AllVision: true, // every Claude model agentls can reach takes images
}
