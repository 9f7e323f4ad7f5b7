package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/wire"
)

// codeActionParams are textDocument/codeAction's params; triggerKind (LSP
// 3.17) is decoded here because protocol v0.12 drops it.
type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   lspRange `json:"range"`
	Context struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
		TriggerKind int               `json:"triggerKind"`
	} `json:"context"`
}

// triggerAutomatic is CodeActionTriggerKind.Automatic.
const triggerAutomatic = 2

// command is an LSP Command.
type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

// codeAction is an LSP CodeAction that carries a command, never an edit.
type codeAction struct {
	Title       string            `json:"title"`
	Kind        string            `json:"kind"`
	Diagnostics []json.RawMessage `json:"diagnostics,omitempty"`
	Command     *command          `json:"command"`
}

// commandFor is the LSP Command that runs the declared command m with args.
func commandFor[A, R any](title string, m wire.Request[A, R], args A) *command {
	return &command{Title: title, Command: m.Name, Arguments: wire.EncodeArgs(args)}
}

// runCommand is the agentls.run command of a code action.
func runCommand(title string, p wire.RunParams) *command {
	return commandFor(title, wire.RunCommand, wire.RunArgs{Run: p})
}

// codeAction offers docs/protocol.md section 6: approvals first while any wait,
// then a line's `agent:` directive, the selection as prompt, fixing the
// client's diagnostics, and cancelling the latest task. Automatic requests
// get only the approvals.
//
// The result is LSP's (Command | CodeAction)[]: Commands for a client
// without CodeAction literals, else CodeActions.
func (s *Server) codeAction(_ context.Context, p codeActionParams) (any, error) {
	s.mcp.noteCodeAction(p)
	actions := s.approvalActions()
	if p.Context.TriggerKind != triggerAutomatic {
		actions = append(actions, s.taskActions(p)...)
		actions = append(actions, s.controlActions()...)
	}
	s.mu.Lock()
	literals := s.client.codeActionLits
	s.mu.Unlock()
	if !literals {
		// A client without CodeAction literals takes Commands.
		cmds := make([]*command, 0, len(actions))
		for _, a := range actions {
			cmds = append(cmds, a.Command)
		}
		return cmds, nil
	}
	return actions, nil
}

// approvalActions are one action per option of every waiting approval,
// oldest first.
func (s *Server) approvalActions() []codeAction {
	actions := []codeAction{}
	for _, a := range s.approvals.list() {
		for _, o := range a.Options {
			title := fmt.Sprintf("agentls: %s: %s", o.Name, approvalSubject(a))
			actions = append(actions, codeAction{Title: title, Kind: "source",
				Command: commandFor(title, wire.ApproveCommand, wire.ApproveArgs{ApprovalID: a.ApprovalID, OptionID: o.OptionID})})
		}
	}
	return actions
}

func (s *Server) taskActions(p codeActionParams) []codeAction {
	var actions []codeAction
	uri := p.TextDocument.URI
	doc := &wire.TextDocument{URI: uri}
	r := p.Range
	if d, ok := s.docs.get(uri); ok {
		if dir, ok := directive(lineText(d.text, r.Start.Line)); ok {
			title := fmt.Sprintf("agentls: Run %q", dir)
			actions = append(actions, codeAction{Title: title, Kind: "source",
				Command: runCommand(title, wire.RunParams{Prompt: dir, TextDocument: doc, Range: &r})})
		}
	}
	if r.Start != r.End {
		title := "agentls: Run selection as prompt"
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: runCommand(title, wire.RunParams{TextDocument: doc, Range: &r})})
	}
	if diags := fixable(p.Context.Diagnostics); len(diags) > 0 {
		title := "agentls: Fix with agent"
		actions = append(actions, codeAction{Title: title, Kind: "quickfix", Diagnostics: diags,
			Command: runCommand(title, wire.RunParams{Prompt: fixPrompt(diags), TextDocument: doc, Range: &r, Diagnostics: diags})})
	}
	actions = append(actions, s.promptActions()...)
	if latest, ok := s.latestTask(); ok {
		title := "agentls: Cancel task"
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.CancelCommand, wire.TaskArgs{TaskID: latest.TaskID})})
	}
	return actions
}

// promptActions offer every listed MCP prompt that needs no argument
// (the editor plugins ask a prompt's arguments themselves). The names are
// the server's own text: escaped.
func (s *Server) promptActions() []codeAction {
	s.mu.Lock()
	core := s.core
	s.mu.Unlock()
	if core == nil {
		return nil
	}
	var actions []codeAction
	for _, p := range core.Prompts() {
		if len(p.Required()) > 0 {
			continue
		}
		title := "agentls: Prompt " + agent.PromptTitle(agent.PromptRef{Server: p.Server, Name: p.Name})
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.PromptCommand, wire.PromptArgs{Prompt: wire.PromptParams{Server: p.Server, Prompt: p.Name}})})
	}
	return actions
}

// diagnosticSource is the source of agentls's own (approval) diagnostics.
const diagnosticSource = "agentls"

// fixable drops agentls's own diagnostics: an approval is answered by its
// actions, not "fixed" by the agent, and a quickfix for it would be listed
// above "Allow once" (Helix sorts quickfixes first).
func fixable(diags []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range diags {
		var d struct {
			Source string `json:"source"`
		}
		if json.Unmarshal(raw, &d) == nil && d.Source == diagnosticSource {
			continue
		}
		out = append(out, raw)
	}
	return out
}

// latestTask is the newest running task.
func (s *Server) latestTask() (wire.TaskInfo, bool) {
	s.mu.Lock()
	core := s.core
	s.mu.Unlock()
	if core == nil {
		return wire.TaskInfo{}, false
	}
	var tasks []wire.TaskInfo
	for _, t := range core.Tasks() {
		if t.State != "done" {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		return wire.TaskInfo{}, false
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].StartedAt.After(tasks[j].StartedAt) })
	return tasks[0], true
}
