package wire

import "encoding/json"

// Origin is where a server's config came from.
type Origin string

// The origins of a server's config.
const (
	OriginUser      Origin = "user"      // the user's own config: trusted
	OriginWorkspace Origin = "workspace" // the repository's: untrusted
	OriginEditor    Origin = "editor"    // passed by the editor for a session (ACP): untrusted
)

// Policy is what the call policy decides for a tool: the policy column of
// the server list, decided by the same code that decides each call.
type Policy string

// The policy outcomes.
const (
	PolicyAllow Policy = "allow"
	PolicyAsk   Policy = "ask"
	PolicyDeny  Policy = "deny"
)

// ServersResult is agent/mcp/servers' result, and what `agentls mcp list
// --json` prints.
type ServersResult struct {
	Servers []Server `json:"servers"`
}

// MCPListResult is the agentls.mcp.list command's result: the list and
// the report it wrote and opened.
type MCPListResult struct {
	Servers []Server `json:"servers"`
	Path    string   `json:"path"`
}

// Server is one configured MCP server as docs/protocol.md section 2's
// Server gives it: the fields it says are always present have no
// omitempty (Command and EnvKeys are [] when empty, never null); the
// remote server's url and headerNames, transport, revision, prompts and warnings are
// omitted when empty. Command, Error and StderrTail come redacted.
type Server struct {
	Name         string       `json:"name"`
	Origin       Origin       `json:"origin"`
	State        ServerState  `json:"state"`
	Command      []string     `json:"command"`
	EnvKeys      []string     `json:"envKeys"`
	Cwd          string       `json:"cwd"`
	Sandbox      string       `json:"sandbox"`
	URL          string       `json:"url,omitempty"`
	HeaderNames  []string     `json:"headerNames,omitempty"`
	Transport    string       `json:"transport,omitempty"`
	Revision     string       `json:"revision,omitempty"`
	Prompts      []Prompt     `json:"prompts,omitempty"`
	Error        string       `json:"error"`
	StderrTail   string       `json:"stderrTail"`
	Warnings     []string     `json:"warnings,omitempty"`
	SchemaTokens int          `json:"schemaTokens"`
	Tools        []ServerTool `json:"tools"`
}

// ServerTool is one tool of a Server with its policy.
type ServerTool struct {
	Name         string          `json:"name"`       // namespaced, as the model sees it
	Server       string          `json:"server"`     // the server's config name
	ServerTool   string          `json:"serverTool"` // the server's own name for it
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	Annotations  Annotations     `json:"annotations"` // {} when the server made no claims
	SchemaTokens int             `json:"schemaTokens"`
	Policy       Policy          `json:"policy"`
	PolicyReason string          `json:"policyReason,omitempty"`
}

// Annotations are a server's own claims about a tool. Untrusted: shown,
// and only ever used to tighten the policy.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Prompt is one prompt a connected server offers.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a Prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}
