// Package mcp runs MCP servers for agentls, stdio and remote: it spawns the
// stdio ones (no shell, own process group through internal/proc), speaks MCP
// through the official Go SDK (per server the revision it answers with:
// 2026-07-28 through server/discover, else 2025-11-25 or older through
// initialize; on Streamable HTTP, or HTTP+SSE for old servers), hands out
// legal namespaced tool names, converts and caps results, and reaps every
// process it started. Callers see Registry, Tool, ServerInfo and
// Result; the SDK's types never leave this package. It never decides whether
// something may run: launch consent comes in through Options.Gate.
package mcp

import (
	"encoding/json"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// State is a configured server's state, as docs/protocol.md section 2
// spells it (package wire's ServerState).
type State = wire.ServerState

// The states of docs/protocol.md section 2.
const (
	Connecting    = wire.ServerConnecting
	Connected     = wire.ServerConnected
	Failed        = wire.ServerFailed
	NeedsApproval = wire.ServerNeedsApproval
	ApprovalStale = wire.ServerApprovalStale
	Disabled      = wire.ServerDisabled
	Stopped       = wire.ServerStopped
)

// Annotations are the server's own claims about a tool. Untrusted: they may
// only ever tighten policy.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool is one tool as the model sees it.
type Tool struct {
	Name           string          `json:"name"`       // namespaced, legal by toolname.Valid
	Server         string          `json:"server"`     // config name of the server
	ServerTool     string          `json:"serverTool"` // the server's own name, exact
	Description    string          `json:"description"`
	InputSchema    json.RawMessage `json:"inputSchema"`
	Annotations    *Annotations    `json:"annotations,omitempty"`
	SchemaTokens   int             `json:"schemaTokens"`
	UI             string          `json:"ui,omitempty"` // the ui:// resource of its MCP App (Registry.App reads it)
	DefinitionHash string          `json:"-"`            // sha256 hex of the original description + input schema + annotations (for a workspace-tier server, also bound to its root and launch fingerprint)
}

// ServerInfo is one configured server's row. The fronts never send it: agent
// builds the list they send (wire.Server, docs/protocol.md Server) from it.
type ServerInfo struct {
	Name    string        `json:"name"`
	Origin  config.Origin `json:"origin"`
	State   State         `json:"state"`
	Command []string      `json:"command"`
	EnvKeys []string      `json:"envKeys"`
	Cwd     string        `json:"cwd"`
	// Sandbox says what the kernel lets the server touch (or that it runs
	// unconfined, and why): the line its launch card shows.
	Sandbox      string   `json:"sandbox"`
	URL          string   `json:"url,omitempty"`         // a remote server's endpoint
	HeaderNames  []string `json:"headerNames,omitempty"` // the headers sent to it (names only, never values)
	Transport    string   `json:"transport,omitempty"`   // while connected: "stdio", "streamable-http" or "sse"
	Revision     string   `json:"revision,omitempty"`    // while connected: the MCP revision it speaks ("2026-07-28", "2025-11-25", ...)
	Prompts      []Prompt `json:"prompts,omitempty"`     // while connected: the prompts it offers
	Error        string   `json:"error,omitempty"`
	StderrTail   string   `json:"stderrTail,omitempty"`
	Warnings     []string `json:"warnings,omitempty"` // e.g. tools dropped over max_tools_per_server
	SchemaTokens int      `json:"schemaTokens"`
	Tools        []Tool   `json:"tools"`
}

// Result is the outcome of a tool call for the model. Text is what every
// reader gets: the text content, with every other block described where it
// stood ("[image: image/png, 3 KB, 64x64]"). Images are the images the model
// may be shown, in order, each also named in Text. When IsError is true,
// Text starts with "ERROR: <server>: ".
type Result struct {
	Text    string
	IsError bool
	// Structured is the result's structuredContent as the server sent it
	// (JSON), for an MCP App to render; never sent to the model but as
	// Text says.
	Structured json.RawMessage
	Images     []Image
	// Task is set when the server runs the call as a task that was still
	// working at call_timeout: Text says so, and Registry.AwaitTask
	// follows it on.
	Task *Task
}

// Image is an image of a tool result that passed the checks: a type the
// model APIs take (ImageTypes), bytes of that type, within max_image_bytes.
type Image struct {
	MIMEType string
	Data     []byte // the image itself, decoded from the result's base64
	// Width and Height are its size in pixels, when its header says (PNG,
	// JPEG, GIF); 0 otherwise.
	Width, Height int
}

// Resource is one resource a server lists.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// URITemplate is set (and URI empty) for a resource template: an RFC
	// 6570 template the model fills in to read a resource.
	URITemplate string `json:"uriTemplate,omitempty"`
}

// ResourceContent is what resources/read returned: Text for text contents,
// Blob for binary ones.
type ResourceContent struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// LaunchGate says whether a configured server may be started now. It returns
// "" and the server as it is to start (s, or s with the confinement the
// user chose on its launch card applied), or NeedsApproval / ApprovalStale
// to hold it. A nil gate starts user-tier servers and never starts
// workspace-tier ones (fail closed).
type LaunchGate func(s config.Server) (State, config.Server)
