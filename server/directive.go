package server

import (
	"context"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/wire"
)

// directiveEditLimit bounds the wait for the editor's answer to the edit.
const directiveEditLimit = 30 * time.Second

// dropDirective removes the `agent:` comment a task was started from once
// the task ended its turn having changed a file, as one versioned edit
// through the editor (in its undo): the request is done, and a directive
// left behind would be offered again. A task none of whose writes landed
// (the user rejected the edit, closed its diff, or the task only answered)
// keeps it, so the request can be run again. Only a line that still reads
// exactly as the directive does goes (found where it was, or once
// elsewhere if the task's edit moved it); [agent] keep_directive keeps it.
func (s *Server) dropDirective(core *agent.Core, req agent.RunRequest, task *agent.Task) {
	r := task.Result()
	if r.StopReason != wire.StopEndTurn || req.Document == "" || req.Range == nil || core.Config().Agent.KeepDirective || len(task.Wrote()) == 0 {
		return
	}
	s.mu.Lock()
	info := s.client
	s.mu.Unlock()
	doc, ok := s.docs.byPath(req.Document)
	if !ok || !info.applyEdit || s.conn == nil {
		return
	}
	line := -1
	if d, ok := directive(lineText(doc.text, req.Range.StartLine)); ok && d == req.Prompt {
		line = req.Range.StartLine
	} else {
		for i, n := 0, strings.Count(doc.text, "\n")+1; i < n; i++ {
			if d, ok := directive(lineText(doc.text, i)); ok && d == req.Prompt {
				if line >= 0 {
					return // twice: not ours to pick
				}
				line = i
			}
		}
	}
	if line < 0 {
		return
	}
	edit := textEdit{Range: lspRange{Start: position{Line: line}, End: position{Line: line + 1}}}
	var p applyEditParams
	p.Label = "agentls: remove the agent: comment of a finished task"
	if info.versionedEdits {
		var e textDocumentEdit
		v := doc.version
		e.TextDocument.URI, e.TextDocument.Version, e.Edits = doc.uri, &v, []textEdit{edit}
		p.Edit.DocumentChanges = []any{e}
	} else {
		p.Edit.Changes = map[string][]textEdit{doc.uri: {edit}}
	}
	ctx, cancel := context.WithTimeout(s.ctx, directiveEditLimit)
	defer cancel()
	var res protocol.ApplyWorkspaceEditResponse
	if err := s.conn.Call(ctx, protocol.MethodWorkspaceApplyEdit, p, &res); err != nil {
		s.logMessage(logWarning, "agentls: removing the agent: comment of "+req.Document+": "+err.Error())
	}
}
