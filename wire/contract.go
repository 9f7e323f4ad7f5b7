package wire

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// The contract: every agent/* method and every agentls.* command, declared
// once. A declaration names the method, the Go types of its params and its
// result, and says in a line what it does. The LSP front's routes, its
// command table, the usage an error quotes and the commands it announces
// are derived from these; tests check docs/protocol.md's tables and the
// editor plugins' calls against them, field by field. Adding a method is a
// declaration here and its handler in server/.

// Direction says who sends a method and whether it is answered.
type Direction int

// The directions of a method.
const (
	// ClientRequest is a request the client sends and the server answers.
	ClientRequest Direction = iota
	// ServerRequest is a request the server sends and the client answers.
	ServerRequest
	// ServerNotification is a notification the server sends.
	ServerNotification
	// CommandRequest is an agentls.* command, a workspace/executeCommand
	// whose arguments are its params' fields in order.
	CommandRequest
)

// Method is one declared method or command: the facts a route, a document
// row and a client's call are checked against.
type Method struct {
	Name string
	// Doc says in a line what it does.
	Doc string
	Dir Direction
	// Params is the type its params decode into: a struct whose JSON
	// fields are the params' (Args fields, in order, for a command).
	Params reflect.Type
	// Result is the type of its result; Null for a null result, nil for
	// a notification.
	Result reflect.Type
}

// Request is a declared method whose params decode into P and whose result
// is R: a front binds it to a handler of exactly that type, so the compiler
// holds the handler to the declaration.
type Request[P, R any] struct{ Method }

// Null is the result of a method that answers null.
type Null struct{}

// MarshalJSON writes null.
func (Null) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

var declared []Method

func declare[P, R any](dir Direction, name, doc string) Request[P, R] {
	m := Method{Name: name, Doc: doc, Dir: dir, Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R]()}
	if dir == ServerNotification {
		m.Result = nil
	}
	declared = append(declared, m)
	return Request[P, R]{m}
}

func request[P, R any](name, doc string) Request[P, R] {
	return declare[P, R](ClientRequest, name, doc)
}

func command[A, R any](name, doc string) Request[A, R] {
	return declare[A, R](CommandRequest, name, doc)
}

// The agent/* requests, client to server (docs/protocol.md section 2).
var (
	Run             = request[RunParams, RunResult]("agent/run", "runs one turn and answers when it ends")
	Cancel          = request[CancelParams, Null]("agent/cancel", "cancels a task, or every task of a session")
	Tasks           = request[NoParams, TasksResult]("agent/tasks", "lists the tasks running and just done")
	NewChat         = request[NewChatParams, NewChatResult]("agent/newChat", "starts an empty history, cancelling the old session's tasks")
	Sessions        = request[NoParams, SessionsResult]("agent/sessions", "lists the stored sessions, newest first")
	PinSession      = request[PinSessionParams, Null]("agent/pinSession", "pins or unpins a stored session against retention")
	Replay          = request[ReplayParams, ReplayResult]("agent/replay", "answers a stored session as the events a client shows")
	Status          = request[StatusParams, StatusResult]("agent/status", "names the model the next turn talks to and the session's mode")
	SetMode         = request[SetModeParams, ModeResult]("agent/setMode", "sets a session's mode, or the mode of sessions not set since")
	SetModel        = request[SetModelParams, ModelResult]("agent/setModel", "switches a session's model profile for its next turn, or the profile of sessions not set since")
	Rules           = request[NoParams, RulesResult]("agent/rules", "lists the saved always-allow rules of the workspace folders")
	RevokeRule      = request[RevokeRuleParams, RevokeRuleResult]("agent/rules/revoke", "forgets a saved always-allow rule")
	Compact         = request[CompactParams, CompactResult]("agent/compact", "compacts what is sent next for a session")
	Rewind          = request[RewindParams, RewindResult]("agent/rewind", "puts the files of a turn and later ones back as before it, and forks the session there")
	Turns           = request[TurnsParams, TurnsResult]("agent/turns", "lists a session's turns a rewind can go back before")
	Approvals       = request[NoParams, ApprovalsResult]("agent/approvals", "lists the approvals waiting")
	ResolveApproval = request[ResolveApprovalParams, Null]("agent/resolveApproval", "answers a waiting approval with one of its options")
	MCPServers      = request[NoParams, ServersResult]("agent/mcp/servers", "lists the configured MCP servers, their tools and policy")
	MCPTrust        = request[ServerParams, ServerStateResult]("agent/mcp/trust", "shows a server's launch card and starts it on consent")
	MCPRevoke       = request[RevokeParams, RevokeResult]("agent/mcp/revoke", "forgets a server's approval, or every one")
	MCPRestart      = request[ServerParams, ServerStateResult]("agent/mcp/restart", "restarts a server")
	MCPApp          = request[AppParams, AppResult]("agent/mcp/app", "reads the MCP App a tool result offers, for a client that shows it")
	MCPAppCall      = request[AppCallParams, AppCallResult]("agent/mcp/appCall", "runs a tool call an MCP App asks for through the gate and its card")
)

// Server to client (docs/protocol.md sections 3 and 4).
var (
	EventNotification = declare[Event, Null](ServerNotification, "agent/event", "one event of a task, to clients that asked for events")
	RequestApproval   = declare[ApprovalRequest, RequestApprovalResult](ServerRequest, "agent/requestApproval", "asks the client's own approval UI")
)

// Server to client: the editor extras (docs/protocol.md section 9), sent
// only when the client announced them (EditorExtras), for an outside MCP
// agent's call.
var (
	EditorTabs           = declare[NoParams, EditorTabsResult](ServerRequest, "agent/editor/tabs", "lists the editor's open tabs")
	EditorCloseTab       = declare[EditorCloseTabParams, EditorCloseTabResult](ServerRequest, "agent/editor/closeTab", "closes a tab, never one with unsaved changes")
	EditorTerminals      = declare[NoParams, EditorTerminalsResult](ServerRequest, "agent/editor/terminals", "lists the terminals agentls created in the editor")
	EditorCreateTerminal = declare[EditorCreateTerminalParams, EditorTerminalID](ServerRequest, "agent/editor/createTerminal", "creates a terminal in the editor")
	EditorSendTerminal   = declare[EditorSendTerminalParams, Empty](ServerRequest, "agent/editor/sendTerminal", "types text and a newline into a terminal agentls created")
	EditorReadTerminal   = declare[EditorReadTerminalParams, EditorReadTerminalResult](ServerRequest, "agent/editor/readTerminal", "reads the latest output of a terminal agentls created")
	EditorTasks          = declare[NoParams, EditorTasksResult](ServerRequest, "agent/editor/tasks", "lists the workspace's tasks")
	EditorRunTask        = declare[EditorRunTaskParams, EditorRunTaskResult](ServerRequest, "agent/editor/runTask", "runs a task and answers when it ends")
	EditorDiagnostics    = declare[EditorDiagnosticsParams, EditorDiagnosticsResult](ServerRequest, "agent/editor/diagnostics", "lists every diagnostic the editor holds, of all its language servers")
)

// The agentls.* commands (docs/protocol.md section 5). Each answers at
// once; the work goes on in the background.
var (
	RunCommand        = command[RunArgs, TaskStarted]("agentls.run", "starts a task of the commands' session")
	PromptCommand     = command[PromptArgs, TaskStarted]("agentls.prompt", "runs an MCP server's prompt as a task")
	CancelCommand     = command[TaskArgs, Null]("agentls.cancel", "cancels a task, the latest when none is named")
	ApproveCommand    = command[ApproveArgs, Null]("agentls.approve", "allows a waiting approval, the oldest when none is named")
	DenyCommand       = command[ApprovalArgs, Null]("agentls.deny", "denies a waiting approval, the oldest when none is named")
	NewChatCommand    = command[NoArgs, SessionResult]("agentls.newChat", "starts an empty chat for the commands")
	CompactCommand    = command[SessionArgs, SessionResult]("agentls.compact", "compacts a session in the background")
	TranscriptCommand = command[SessionArgs, TranscriptResult]("agentls.transcript", "opens a session's Markdown transcript")
	MCPListCommand    = command[NoArgs, MCPListResult]("agentls.mcp.list", "writes the MCP server report and opens it")
	MCPTrustCommand   = command[ServerArgs, ServerStateResult]("agentls.mcp.trust", "shows a server's launch card in the background")
	MCPRevokeCommand  = command[RevokeArgs, RevokeResult]("agentls.mcp.revoke", "forgets a server's approval, every one when none is named")
	MCPLoginCommand   = command[ServerArgs, ServerStateResult]("agentls.mcp.login", "logs in to a remote MCP server in the background")
	SetModeCommand    = command[SetModeArgs, ModeResult]("agentls.setMode", "sets the mode of the commands' session and of sessions not set since")
	SetModelCommand   = command[SetModelArgs, ModelResult]("agentls.setModel", "switches the model profile of the commands' session and of sessions not set since")
	RulesCommand      = command[NoArgs, RulesResult]("agentls.rules", "lists the saved always-allow rules in a message")
	RevokeRuleCommand = command[RuleArgs, RevokeRuleResult]("agentls.rules.revoke", "forgets a saved always-allow rule")
	RewindCommand     = command[RewindArgs, SessionResult]("agentls.rewind", "rewinds the commands' session to before a turn in the background")
	ResumeCommand     = command[ResumeArgs, SessionResult]("agentls.resume", "makes a past session the commands' session: the next task continues it")
)

// Methods are every declared method and command, in declaration order.
func Methods() []Method { return append([]Method(nil), declared...) }

// MethodsOf are the declared methods of one direction.
func MethodsOf(dir Direction) []Method {
	var ms []Method
	for _, m := range declared {
		if m.Dir == dir {
			ms = append(ms, m)
		}
	}
	return ms
}

// Field is one JSON field of a params or result type, or one positional
// argument of a command.
type Field struct {
	Name string
	// Optional fields may be left out (omitempty; `optional` for an
	// argument); docs/protocol.md marks them with '?'.
	Optional bool
	Type     reflect.Type
}

// Fields are t's JSON fields in order, those of embedded structs in their
// place ("-" skipped), or for a command's arguments type the arguments.
func Fields(t reflect.Type) []Field {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var fs []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		if tag, ok := sf.Tag.Lookup("arg"); ok {
			name, opt, _ := strings.Cut(tag, ",")
			fs = append(fs, Field{Name: name, Optional: opt == "optional", Type: sf.Type})
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			fs = append(fs, Fields(sf.Type)...)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, Field{Name: name, Optional: strings.Contains(","+opts+",", ",omitempty,"), Type: sf.Type})
	}
	return fs
}

// Usage writes m's params for an error to quote, one level deep, '?' on
// a field that may be left out: a request's as {"prompt"?, "sessionId"?},
// a command's arguments as [taskId?] (an argument that is an object as
// its shape).
func (m Method) Usage() string {
	if m.Dir == CommandRequest {
		return shape(m.Params, "[", "]")
	}
	return shape(m.Params, "{", "}")
}

func shape(t reflect.Type, open, end string) string {
	var b strings.Builder
	b.WriteString(open)
	for i, f := range Fields(t) {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case f.Name == "": // an argument that is an object
			b.WriteString(shape(f.Type, "{", "}"))
		case open == "{":
			b.WriteString(strconv.Quote(f.Name))
		default:
			b.WriteString(f.Name)
		}
		if f.Optional {
			b.WriteString("?")
		}
	}
	b.WriteString(end)
	return b.String()
}

// DecodeArgs decodes a command's positional arguments into the fields of
// args (a pointer to its arguments type), in order: an absent or null
// argument leaves its field as is. An error names the argument (1-based).
func DecodeArgs(arguments []json.RawMessage, args any) error {
	v := reflect.ValueOf(args).Elem()
	for i := 0; i < v.NumField() && i < len(arguments); i++ {
		if string(arguments[i]) == "null" {
			continue
		}
		if err := json.Unmarshal(arguments[i], v.Field(i).Addr().Interface()); err != nil {
			return &ArgError{N: i + 1, Err: err}
		}
	}
	return nil
}

// EncodeArgs are args (a command's arguments type) as the arguments array
// of a workspace/executeCommand: its fields in order.
func EncodeArgs(args any) []any {
	v := reflect.ValueOf(args)
	out := make([]any, v.NumField())
	for i := range out {
		out[i] = v.Field(i).Interface()
	}
	return out
}

// ArgError is a command argument that does not decode.
type ArgError struct {
	N   int // 1-based
	Err error
}

func (e *ArgError) Error() string { return "argument " + strconv.Itoa(e.N) + ": " + e.Err.Error() }

// Unwrap returns the decoding error.
func (e *ArgError) Unwrap() error { return e.Err }

// The arguments of the agentls.* commands: each field is one positional
// argument, in order; its arg tag names it (docs/protocol.md section 5
// writes the names) and says whether it may be left out.

// RunArgs are agentls.run's arguments: [RunParams].
type RunArgs struct {
	Run RunParams `arg:""`
}

// PromptArgs are agentls.prompt's arguments: [PromptParams].
type PromptArgs struct {
	Prompt PromptParams `arg:""`
}

// PromptParams are agentls.prompt's argument: an MCP server's prompt, the
// values of its arguments, and the session to run it in (the commands'
// session when empty).
type PromptParams struct {
	Server    string            `json:"server"`
	Prompt    string            `json:"prompt"`
	Arguments map[string]string `json:"arguments,omitempty"`
	SessionID string            `json:"sessionId,omitempty"`
}

// TaskArgs are agentls.cancel's arguments: [taskId?] (the latest task
// when absent).
type TaskArgs struct {
	TaskID string `arg:"taskId,optional"`
}

// ApproveArgs are agentls.approve's arguments: [approvalId?, optionId?]
// (the oldest waiting, allow_once, when absent).
type ApproveArgs struct {
	ApprovalID string `arg:"approvalId,optional"`
	OptionID   string `arg:"optionId,optional"`
}

// ApprovalArgs are agentls.deny's arguments: [approvalId?] (the oldest
// waiting when absent).
type ApprovalArgs struct {
	ApprovalID string `arg:"approvalId,optional"`
}

// SessionArgs are agentls.compact's and agentls.transcript's arguments:
// [sessionId?] (the commands' session when absent).
type SessionArgs struct {
	SessionID string `arg:"sessionId,optional"`
}

// ServerArgs are agentls.mcp.trust's and agentls.mcp.login's arguments:
// [server].
type ServerArgs struct {
	Server string `arg:"server"`
}

// RevokeArgs are agentls.mcp.revoke's arguments: [server?] (every
// remembered approval when absent).
type RevokeArgs struct {
	Server string `arg:"server,optional"`
}

// SetModeArgs are agentls.setMode's arguments: [mode].
type SetModeArgs struct {
	Mode string `arg:"mode"`
}

// SetModelArgs are agentls.setModel's arguments: [profile].
type SetModelArgs struct {
	Profile string `arg:"profile"`
}

// ResumeArgs are agentls.resume's arguments: [sessionId].
type ResumeArgs struct {
	SessionID string `arg:"sessionId"`
}

// RuleArgs are agentls.rules.revoke's arguments: [id].
type RuleArgs struct {
	ID string `arg:"id"`
}

// RewindArgs are agentls.rewind's arguments: [turn, force?].
type RewindArgs struct {
	Turn  int  `arg:"turn"`
	Force bool `arg:"force,optional"`
}

// NoArgs are the arguments of a command that takes none: whatever a
// client sends is ignored.
type NoArgs struct{}
