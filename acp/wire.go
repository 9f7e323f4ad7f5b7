package acp

import (
	"encoding/json"

	"github.com/agentls/agentls/wire"
)

// ProtocolVersion is the ACP major version this agent speaks.
const ProtocolVersion = 1

// ACP method names (schema/v1 of the ACP SDK).
const (
	methodInitialize        = "initialize"
	methodAuthenticate      = "authenticate"
	methodSessionNew        = "session/new"
	methodSessionSetMode    = "session/set_mode"
	methodSetConfigOption   = "session/set_config_option"
	methodSessionLoad       = "session/load"
	methodSessionList       = "session/list"
	methodSessionResume     = "session/resume"
	methodSessionPrompt     = "session/prompt"
	methodSessionCancel     = "session/cancel"
	methodSessionUpdate     = "session/update"
	methodRequestPermission = "session/request_permission"
	methodReadTextFile      = "fs/read_text_file"
	methodWriteTextFile     = "fs/write_text_file"
	methodCancelRequest     = "$/cancel_request"
)

// StopReason is why a prompt turn ended.
type StopReason string

// The stop reasons of ACP v1.
const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// ToolCallStatus is where a tool call is.
type ToolCallStatus string

// The tool call statuses of ACP v1.
const (
	StatusPending    ToolCallStatus = "pending"
	StatusInProgress ToolCallStatus = "in_progress"
	StatusCompleted  ToolCallStatus = "completed"
	StatusFailed     ToolCallStatus = "failed"
)

// The session/update kinds this agent sends.
const (
	updateUserMessage       = "user_message_chunk"
	updateAgentMessage      = "agent_message_chunk"
	updateCurrentMode       = "current_mode_update"
	updateConfigOption      = "config_option_update"
	updateAgentThought      = "agent_thought_chunk"
	updateToolCall          = "tool_call"
	updateToolCallUpdate    = "tool_call_update"
	updateAvailableCommands = "available_commands_update"
	updateUsage             = "usage_update"
	updatePlan              = "plan"
)

// Permission outcomes.
const (
	outcomeSelected  = "selected"
	outcomeCancelled = "cancelled"
)

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities clientCapabilities `json:"clientCapabilities"`
	ClientInfo         *implementation    `json:"clientInfo,omitempty"`
}

type clientCapabilities struct {
	FS struct {
		ReadTextFile  bool `json:"readTextFile"`
		WriteTextFile bool `json:"writeTextFile"`
	} `json:"fs"`
	Terminal bool `json:"terminal"`
	// Elicitation: the editor shows forms (form) and sends the user to
	// URLs (url) on elicitation/create.
	Elicitation *struct {
		Form *struct{} `json:"form"`
		URL  *struct{} `json:"url"`
	} `json:"elicitation"`
}

type initializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AuthMethods       []struct{}        `json:"authMethods"`
	AgentInfo         implementation    `json:"agentInfo"`
}

type agentCapabilities struct {
	LoadSession         bool                `json:"loadSession"`
	PromptCapabilities  promptCapabilities  `json:"promptCapabilities"`
	MCPCapabilities     mcpCapabilities     `json:"mcpCapabilities"`
	SessionCapabilities sessionCapabilities `json:"sessionCapabilities"`
}

type promptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

type mcpCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

type sessionCapabilities struct {
	List                  *struct{} `json:"list,omitempty"`
	Resume                *struct{} `json:"resume,omitempty"`
	AdditionalDirectories *struct{} `json:"additionalDirectories,omitempty"`
}

// mcpServer is one entry of mcpServers: stdio when Type is "" (ACP v1
// stdio servers carry no type), else "http" or "sse".
type mcpServer struct {
	Type    string        `json:"type,omitempty"`
	Name    string        `json:"name"`
	Command string        `json:"command"`
	Args    []string      `json:"args"`
	Env     []envVariable `json:"env"`
	URL     string        `json:"url,omitempty"`
	Headers []httpHeader  `json:"headers,omitempty"` // http and sse
}

// httpHeader is one header of an http or sse server (ACP's HttpHeader).
type httpHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type envVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type newSessionRequest struct {
	Cwd        string      `json:"cwd"`
	MCPServers []mcpServer `json:"mcpServers"`
	// AdditionalDirectories are more workspace roots beside cwd (absolute).
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
}

type newSessionResponse struct {
	SessionID     string            `json:"sessionId"`
	Modes         *sessionModeState `json:"modes,omitempty"`
	ConfigOptions []configOption    `json:"configOptions,omitempty"`
}

// loadSessionResponse answers session/load and session/resume.
type loadSessionResponse struct {
	Modes         *sessionModeState `json:"modes,omitempty"`
	ConfigOptions []configOption    `json:"configOptions,omitempty"`
}

type loadSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	MCPServers            []mcpServer `json:"mcpServers"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type listSessionsRequest struct {
	Cwd    *string `json:"cwd,omitempty"`
	Cursor *string `json:"cursor,omitempty"`
}

type listSessionsResponse struct {
	Sessions []sessionInfo `json:"sessions"`
}

type sessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

type emptyResponse struct{}

type promptRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []contentBlock `json:"prompt"`
}

type promptResponse struct {
	StopReason StopReason `json:"stopReason"`
}

type cancelNotification struct {
	SessionID string `json:"sessionId"`
}

// contentBlock is ACP's ContentBlock: text, resource_link or resource (what
// this agent accepts in a prompt), or image/audio (refused there, as the
// capabilities say; an image a tool returned goes out as one).
type contentBlock struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	MimeType string            `json:"mimeType,omitempty"`
	Resource *resourceContents `json:"resource,omitempty"`
	Data     string            `json:"data,omitempty"` // image: base64
}

type resourceContents struct {
	URI      string  `json:"uri"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	MimeType string  `json:"mimeType,omitempty"`
}

func textBlock(s string) contentBlock { return contentBlock{Type: "text", Text: s} }

type sessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    sessionUpdate `json:"update"`
}

// sessionUpdate is one SessionUpdate; SessionUpdate says which fields mean
// something.
type sessionUpdate struct {
	SessionUpdate     string             `json:"sessionUpdate"`
	Content           *contentBlock      `json:"-"` // chunks; see MarshalJSON
	ToolCall          *toolCall          `json:"-"`
	AvailableCommands []availableCommand `json:"availableCommands,omitempty"`
	Usage             *usageUpdate       `json:"-"`
	Plan              []planEntry        `json:"-"`
	CurrentModeID     wire.Mode          `json:"-"` // current_mode_update
	ConfigOptions     []configOption     `json:"-"` // config_option_update
}

// usageUpdate is how full the session's context window is: the tokens in
// context after the last response, of the model's window.
type usageUpdate struct {
	Used int `json:"used"`
	Size int `json:"size"`
}

// MarshalJSON flattens the variant into the update object, as the schema's
// allOf does (a chunk's content, a tool call's fields beside sessionUpdate).
func (u sessionUpdate) MarshalJSON() ([]byte, error) {
	switch {
	case u.Content != nil:
		return json.Marshal(struct {
			SessionUpdate string       `json:"sessionUpdate"`
			Content       contentBlock `json:"content"`
		}{u.SessionUpdate, *u.Content})
	case u.ToolCall != nil:
		return json.Marshal(struct {
			SessionUpdate string `json:"sessionUpdate"`
			toolCall
		}{u.SessionUpdate, *u.ToolCall})
	case u.SessionUpdate == updatePlan:
		return json.Marshal(struct {
			SessionUpdate string      `json:"sessionUpdate"`
			Entries       []planEntry `json:"entries"`
		}{u.SessionUpdate, u.Plan})
	case u.SessionUpdate == updateCurrentMode:
		return json.Marshal(struct {
			SessionUpdate string    `json:"sessionUpdate"`
			CurrentModeID wire.Mode `json:"currentModeId"`
		}{u.SessionUpdate, u.CurrentModeID})
	case u.SessionUpdate == updateConfigOption:
		return json.Marshal(struct {
			SessionUpdate string         `json:"sessionUpdate"`
			ConfigOptions []configOption `json:"configOptions"`
		}{u.SessionUpdate, u.ConfigOptions})
	case u.Usage != nil:
		return json.Marshal(struct {
			SessionUpdate string `json:"sessionUpdate"`
			usageUpdate
		}{u.SessionUpdate, *u.Usage})
	}
	return json.Marshal(struct {
		SessionUpdate     string             `json:"sessionUpdate"`
		AvailableCommands []availableCommand `json:"availableCommands"`
	}{u.SessionUpdate, u.AvailableCommands})
}

// toolCall is a ToolCall (first report) or ToolCallUpdate (later ones):
// only the changed fields are set on an update.
type toolCall struct {
	ToolCallID string            `json:"toolCallId"`
	Title      string            `json:"title,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Status     ToolCallStatus    `json:"status,omitempty"`
	Content    []toolCallContent `json:"content,omitempty"`
	Locations  []location        `json:"locations,omitempty"`
	RawInput   json.RawMessage   `json:"rawInput,omitempty"`
}

// toolCallContent is "content" (a content block) or "diff".
type toolCallContent struct {
	Type    string        `json:"type"`
	Content *contentBlock `json:"content,omitempty"`
	Path    string        `json:"path,omitempty"`
	OldText *string       `json:"oldText,omitempty"`
	NewText *string       `json:"newText,omitempty"`
}

type location struct {
	Path string `json:"path"`
}

type availableCommand struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Input       *commandInput `json:"input,omitempty"`
}

// commandInput is an AvailableCommandInput (unstructured: the text typed
// after the command's name), with the hint shown before any is typed.
type commandInput struct {
	Hint string `json:"hint"`
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type requestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  toolCall           `json:"toolCall"`
	Options   []permissionOption `json:"options"`
}

type requestPermissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

type readTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
}

type readTextFileResponse struct {
	Content string `json:"content"`
}

type writeTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}
