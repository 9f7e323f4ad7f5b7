package server

import (
	"github.com/agentls/agentls/wire"
)

// requestHandlers are the routes of every request: LSP's own methods and
// every agent/* method package wire declares, each bound to its handler.
func (s *Server) requestHandlers() map[string]requestHandler {
	m := map[string]requestHandler{
		"initialize":               typed("initialize", "InitializeParams", s.initialize),
		"shutdown":                 typed("shutdown", "no params", s.shutdown),
		"textDocument/codeAction":  typed("textDocument/codeAction", "CodeActionParams", s.codeAction),
		"workspace/executeCommand": typed("workspace/executeCommand", "ExecuteCommandParams", s.executeCommand),
	}
	for _, r := range s.agentRoutes() {
		m[r.method] = r.h
	}
	return m
}

// notificationHandlers are the routes of every notification agentls acts
// on, each bound to a handler of its params type; any other ($/setTrace,
// didSave, ...) is ignored. $/cancelRequest is the connection's
// (internal/jsonrpc).
func (s *Server) notificationHandlers() map[string]notificationHandler {
	m := map[string]notificationHandler{}
	for _, n := range []notificationRoute{
		bare("initialized", s.initialized),
		bare("exit", s.exit),
		notification(s, "textDocument/didOpen", "{textDocument: {uri, version, text}}", s.didOpen),
		notification(s, "textDocument/didChange", "{textDocument: {uri, version}, contentChanges: [{range?, text}]}", s.didChange),
		notification(s, "textDocument/didClose", "{textDocument: {uri}}", s.didClose),
		notification(s, "window/workDoneProgress/cancel", "{token}", s.workDoneProgressCancel),
		notification(s, "workspace/didChangeWorkspaceFolders", "{event: {added: [{uri, name}], removed: [...]}}", s.didChangeWorkspaceFolders),
	} {
		m[n.method] = n.h
	}
	return m
}

// agentRoutes bind every agent/* request of package wire to its handler;
// the compiler holds each handler to its declaration's params and result.
func (s *Server) agentRoutes() []route {
	return []route{
		bind(wire.Run, s.agentRun),
		bind(wire.Cancel, s.agentCancel),
		bind(wire.Tasks, s.agentTasks),
		bind(wire.NewChat, s.agentNewChat),
		bind(wire.Sessions, s.agentSessions),
		bind(wire.PinSession, s.agentPinSession),
		bind(wire.Replay, s.agentReplay),
		bind(wire.Status, s.agentStatus),
		bind(wire.SetMode, s.agentSetMode),
		bind(wire.SetModel, s.agentSetModel),
		bind(wire.Rules, s.agentRules),
		bind(wire.RevokeRule, s.agentRevokeRule),
		bind(wire.Compact, s.agentCompact),
		bind(wire.Rewind, s.agentRewind),
		bind(wire.Turns, s.agentTurns),
		bind(wire.Approvals, s.agentApprovals),
		bind(wire.ResolveApproval, s.agentResolveApproval),
		bind(wire.MCPServers, s.mcpServers),
		bind(wire.MCPTrust, s.mcpTrust),
		bind(wire.MCPRevoke, s.mcpRevoke),
		bind(wire.MCPRestart, s.mcpRestart),
		bind(wire.MCPApp, s.mcpApp),
		bind(wire.MCPAppCall, s.mcpAppCall),
	}
}

// commandRoutes bind every agentls.* command of package wire to its
// handler (commands.go).
func (s *Server) commandRoutes() []route {
	return []route{
		bindCommand(wire.RunCommand, s.cmdRun),
		bindCommand(wire.PromptCommand, s.cmdPrompt),
		bindCommand(wire.CancelCommand, s.cmdCancel),
		bindCommand(wire.ApproveCommand, s.cmdApprove),
		bindCommand(wire.DenyCommand, s.cmdDeny),
		bindCommand(wire.NewChatCommand, s.cmdNewChat),
		bindCommand(wire.CompactCommand, s.cmdCompact),
		bindCommand(wire.TranscriptCommand, s.cmdTranscript),
		bindCommand(wire.MCPListCommand, s.cmdMCPList),
		bindCommand(wire.MCPTrustCommand, s.cmdMCPTrust),
		bindCommand(wire.MCPRevokeCommand, s.cmdMCPRevoke),
		bindCommand(wire.MCPLoginCommand, s.cmdMCPLogin),
		bindCommand(wire.SetModeCommand, s.cmdSetMode),
		bindCommand(wire.SetModelCommand, s.cmdSetModel),
		bindCommand(wire.RulesCommand, s.cmdRules),
		bindCommand(wire.RevokeRuleCommand, s.cmdRevokeRule),
		bindCommand(wire.RewindCommand, s.cmdRewind),
		bindCommand(wire.ResumeCommand, s.cmdResume),
	}
}
