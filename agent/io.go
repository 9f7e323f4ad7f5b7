package agent

import (
	"context"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"
)

// The wire types the core produces; package protocol defines them.
type (
	ApprovalOption = wire.ApprovalOption
	Approval       = wire.Approval
	FileDiff       = wire.FileDiff
	Event          = wire.Event
	Usage          = wire.Usage
	ToolKind       = wire.ToolKind
)

// Approver asks the user. It returns the chosen optionId; any error, a
// cancelled ctx or an empty answer is a denial. Implemented by server/ for
// editors and by cmd/agentls for the terminal.
type Approver interface {
	RequestApproval(ctx context.Context, a Approval) (optionID string, err error)
}

// EventSink receives a task's events in order. It must not block for long.
type EventSink interface {
	Event(e Event)
}

// Workspace is the agent's view of the editor: unsaved buffers and edits that
// land in the editor (and its undo). Implemented by server/ over LSP and by
// cmd/agentls over the disk.
type Workspace = tools.Workspace
