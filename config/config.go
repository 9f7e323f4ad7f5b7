// Package config loads agentls's TOML configuration from its two tiers (the
// trusted user file and the untrusted per-workspace file), keeping where every
// value came from. It owns validation (file:line errors, unknown keys by full
// path) and ${VAR} expansion. It never starts anything and never fails as a
// whole: a broken entry is reported in Diagnostics and the rest loads.
package config

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentls/agentls/wire"
)

// Origin says which tier a value came from, spelled as the server list
// shows it.
type Origin = wire.Origin

const (
	// User is the user's own config file: trusted, the user typed it.
	User = wire.OriginUser
	// Workspace is <root>/.agentls/config.toml: repo-authored, untrusted.
	Workspace = wire.OriginWorkspace
	// Editor is a server the editor passed for a session (ACP session/new
	// mcpServers). It may come from a repository's project settings, so it
	// is untrusted like Workspace: launch-gated by fingerprint.
	Editor = wire.OriginEditor
)

// Source is where a value was written. Line is 0 when unknown; Col is set
// only for TOML syntax errors.
type Source struct {
	File string
	Line int
	Col  int
}

// String renders file:line:col, file:line or file, or "(default)" for a
// value no file set.
func (s Source) String() string {
	if s.File == "" {
		return "(default)"
	}
	if s.Line > 0 && s.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
	}
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// Severity says whether a diagnostic cost the user something.
type Severity string

const (
	// SeverityWarning: something was ignored (an unknown key, a workspace key
	// that only the user tier may set); everything else still works.
	SeverityWarning Severity = "warning"
	// SeverityError: an entry or a file could not be used (a server listed as
	// failed, a section left at its defaults, a file with a syntax error).
	SeverityError Severity = "error"
)

// Diagnostic is one problem found while loading: a warning when something was
// ignored, an error when an entry could not be used. It always says where,
// what is wrong and what is expected.
type Diagnostic struct {
	Source   Source
	Key      string // full key path, e.g. "mcp.servers.github.tiemout"
	Message  string
	Severity Severity
}

// String renders "file:line: key: message", the form editors and terminals link.
func (d Diagnostic) String() string {
	if d.Key != "" {
		return fmt.Sprintf("%s: %s: %s", d.Source, d.Key, d.Message)
	}
	return fmt.Sprintf("%s: %s", d.Source, d.Message)
}

// Model is the [model] table (user tier only).
type Model struct {
	Provider  string // a name of agent/model/providers.All, or "" (auto, see docs/config.md)
	Name      string
	BaseURL   string
	APIKeyEnv string
	MaxTokens int
	// ContextWindow is the model's window in tokens; 0: guessed from the
	// model's name (providers.ContextWindowFor).
	ContextWindow int
	// MaxTools caps the tools one request offers; 0: the provider's limit
	// (providers.Provider.MaxToolsFor).
	MaxTools int
	// Images says whether the model is shown the images tools return; nil:
	// guessed from the provider and the model's name (providers.ImagesFor).
	Images *bool
	// StreamIdleTimeout is how long an answer may send nothing before the
	// attempt fails (and is retried as any failed attempt is).
	StreamIdleTimeout time.Duration
	// MaxTokensField names the request field of the output budget on the
	// chat completions wire ("max_tokens" or "max_completion_tokens"); "":
	// chosen by the provider and by what the endpoint refuses.
	MaxTokensField string
	// Thinking is the token budget of Anthropic's extended thinking on the
	// Messages wire (at least 1024); 0: off.
	Thinking int
}

// Profile is the model table of the profile named name: [model] for
// DefaultProfile (or ""), else [model.profiles.NAME]; false when there is
// no such profile.
func (c Config) Profile(name string) (Model, bool) {
	if name == "" || name == DefaultProfile {
		return c.Model, true
	}
	p, ok := c.Profiles[name]
	return p, ok
}

// ProfileOrDefault is name, or DefaultProfile when name is "".
func ProfileOrDefault(name string) string {
	if name == "" {
		return DefaultProfile
	}
	return name
}

// IsDefaultProfile reports whether name is [model]'s profile.
func IsDefaultProfile(name string) bool { return ProfileOrDefault(name) == DefaultProfile }

// ProfileNames are the profiles a session may switch to: DefaultProfile
// first, then [model.profiles.NAME] by name.
func (c Config) ProfileNames() []string {
	return append([]string{DefaultProfile}, slices.Sorted(maps.Keys(c.Profiles))...)
}

// Agent is the [agent] table.
type Agent struct {
	MaxIterations int
	// Mode is a new session's mode (user tier only); a front may set
	// another for its session (agent/setMode, --mode, ACP's modes).
	Mode wire.Mode
	// Autopilot is Mode == wire.ModeAutopilot; autopilot = true in the
	// file is the older spelling of mode = "autopilot".
	Autopilot       bool
	ApprovalTimeout time.Duration
	// KeepDirective keeps a line's `agent:` comment after the task it
	// started ended its turn; by default the server removes it.
	KeepDirective bool
}

// Sessions is the [sessions] table (user tier only): how many stored
// sessions a workspace keeps, and for how long. A session the user pinned
// or one a task is using is never deleted.
type Sessions struct {
	Keep   int           // the newest this many; 0: DefaultSessionsKeep
	MaxAge time.Duration // older than this (by last use) go; 0: no age limit
}

// MCP is the [mcp] table.
type MCP struct {
	StartupWait time.Duration
	// ConnectTimeout is the connect timer of a server whose entry sets
	// none and of every server an editor passes; 0: DefaultConnectTimeout.
	ConnectTimeout time.Duration
	ResultMaxBytes int
	// MaxImageBytes caps the images of one tool result together (decoded
	// bytes); an image past it reaches the model as a description.
	MaxImageBytes       int
	DescriptionMaxChars int
	MaxToolsPerServer   int
	// ToolBudgetTokens is how many tokens of MCP tool definitions a request
	// may carry before the rest are found by search; 0: a share of the
	// window (ToolBudgetFor).
	ToolBudgetTokens int
	// LogLevel is the least severe MCP server log message asked for and
	// logged (debug ... emergency).
	LogLevel string
	Servers  []Server     // sorted by name
	Policy   []PolicyRule // both tiers; workspace rules are never "allow"

	// OAuthClientMetadataURL is the https URL of the Client ID Metadata
	// Document agentls presents as its OAuth client_id to authorization
	// servers that support one ("": none, dynamic registration); a user
	// server's own oauth_client_metadata_url replaces it.
	OAuthClientMetadataURL string
}

// Server is one [mcp.servers.NAME] entry.
type Server struct {
	Name          string
	Origin        Origin
	Source        Source // where the [mcp.servers.NAME] table starts
	WorkspaceRoot string // the workspace this entry belongs to (workspace tier), or the root agentls serves
	Command       string
	Args          []string
	Env           map[string]string // as written: ${VAR} not yet expanded
	Cwd           string            // absolute; defaults to the user config's folder (user tier) or the workspace root; "" for a remote server
	// URL is a remote server's endpoint (Streamable HTTP, or the older
	// HTTP+SSE transport as a fallback); "" for a server agentls starts.
	URL string
	// Headers are sent with every request to URL's origin, values as
	// written: ${VAR} is expanded at connect time and never stored.
	Headers map[string]string
	// OAuthClientID is a client registered with the server's authorization
	// server beforehand; "" = dynamic client registration.
	OAuthClientID string
	// OAuthClientSecretEnv names the environment variable holding that
	// client's secret ("" = a public client).
	OAuthClientSecretEnv string

	// OAuthClientMetadataURL is the Client ID Metadata Document URL
	// presented as client_id where the authorization server supports it
	// and no OAuthClientID is set: the entry's own (user tier only), else
	// [mcp] oauth_client_metadata_url; "" = dynamic client registration.
	OAuthClientMetadataURL string

	ConnectTimeout time.Duration
	ListTimeout    time.Duration
	CallTimeout    time.Duration
	Disabled       bool
	// Sandbox is the kernel confinement asked for, as written: "" (the
	// tier's default, see SandboxMode), SandboxNone, SandboxWorkspaceRead
	// or SandboxWorkspaceWrite.
	Sandbox string
	// Network lets a confined server use the network; false: no socket
	// at all but TCP to no port. Meaningless (an error) with SandboxNone.
	Network bool
	// SandboxRead are the folders the user config's [sandbox] read names,
	// which a confined server may read and run from besides its own
	// grants (never set by a repository or an editor).
	SandboxRead []string
	// Err is non-empty when this entry is broken: it is listed as failed with
	// this message and never started.
	Err string
	// connectTimeoutSet: the entry wrote connect_timeout ([mcp]
	// connect_timeout does not replace it).
	connectTimeoutSet bool
	// clientMetadataSet: a user entry wrote oauth_client_metadata_url
	// (even ""), which [mcp] oauth_client_metadata_url does not replace.
	clientMetadataSet bool
}

// Declares reports whether the entry's env sets the variable k.
func (s Server) Declares(k string) bool {
	_, ok := s.Env[k]
	return ok
}

// Sandbox modes of an MCP server ([mcp.servers.NAME] sandbox).
const (
	// SandboxNone runs the server unconfined: it may touch whatever you may.
	SandboxNone = "none"
	// SandboxWorkspaceRead lets the server read (and run programs from) the
	// system, its own program's folder and the workspace, and write only
	// its own state folder.
	SandboxWorkspaceRead = "workspace-read"
	// SandboxWorkspaceWrite is SandboxWorkspaceRead plus writing the
	// workspace.
	SandboxWorkspaceWrite = "workspace-write"
)

// SandboxModes lists the values sandbox accepts.
var SandboxModes = []string{SandboxNone, SandboxWorkspaceRead, SandboxWorkspaceWrite}

// SandboxMode is the confinement the server runs under: what it set, else
// the tier's default. A repository's server (workspace tier) and one an
// editor passes (which the repository may have written: Zed reads
// .zed/settings.json) are confined to reading the workspace by default;
// the user's own servers run unconfined unless the entry says otherwise.
func (s Server) SandboxMode() string {
	if s.URL != "" {
		return SandboxNone // a remote server runs nothing here
	}
	if s.Sandbox != "" {
		return s.Sandbox
	}
	if s.Origin == Workspace || s.Origin == Editor {
		// An editor's servers may come from the repository too (Zed reads
		// .zed/settings.json): confined like the repository's own.
		return SandboxWorkspaceRead
	}
	return SandboxNone
}

// PolicyRule is one [mcp.policy] entry: a tool name or glob and its action.
type PolicyRule struct {
	Pattern string // "github__pull_request_read", "github__*", "*"
	Action  string // "allow" | "ask" | "deny"
	Origin  Origin
	Source  Source
}

// Sandbox is the [sandbox] table (user tier only): what every program
// agentls confines (a repository's or an editor's MCP server, a command
// autopilot runs) may reach besides its own grants.
type Sandbox struct {
	// Read are absolute folders (or files) to read and run from, links
	// resolved when confined.
	Read []string
}

// Config is the merged result of loading both tiers.
type Config struct {
	Model Model
	// Profiles are the [model.profiles.NAME] tables (user tier only), by
	// name: each a whole model table of its own (what it leaves out takes
	// the defaults, not [model]'s values), which a session may switch to
	// between turns (agent/setModel). [model] is the profile named
	// DefaultProfile.
	Profiles map[string]Model
	Agent    Agent
	Sessions Sessions
	MCP      MCP
	Sandbox  Sandbox
	Hooks    Hooks // user tier only
	Serve    Serve // user tier only
	// Prices are the price table (DefaultPrices and the user's [prices]),
	// by model name or the start of one (PriceOf).
	Prices      map[string]Price
	Diagnostics []Diagnostic
	// Unusable are the diagnostics of files that exist but could not be
	// read or are not valid TOML: nothing from them was used (each is in
	// Diagnostics too). A command line command stops on them.
	Unusable       []Diagnostic
	UserFile       string   // the user file that was read ("" if none existed)
	WorkspaceFiles []string // workspace files that were read
}
