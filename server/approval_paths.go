package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentls/agentls/wire"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/trust"
)

// requestApprovalResult is agent/requestApproval's result.
type requestApprovalResult = wire.RequestApprovalResult

// wireApproval is an Approval as agent/requestApproval and agent/approvals
// send it (with a write approval's diff).
type wireApproval = wire.ApprovalRequest

// wireDiff is a write approval's change.
type wireDiff = wire.ApprovalDiff

func toWire(a wire.Approval) wireApproval {
	w := wireApproval{Approval: a}
	if a.Diff != nil {
		w.Diff = &wireDiff{URI: pathToURI(a.Diff.Path), NewText: a.Diff.NewText, Exists: a.Diff.OldText != nil}
	}
	return w
}

// viaRequestApproval is the request card: the client's own approval UI.
func (ap *approvals) viaRequestApproval(ctx context.Context, a wire.Approval) (string, map[string]any, error) {
	var res requestApprovalResult
	if err := ap.s.conn.Call(ctx, wire.RequestApproval.Name, toWire(a), &res); err != nil {
		return "", nil, err
	}
	if res.Outcome != "selected" {
		return "", nil, nil
	}
	return res.OptionID, res.Content, nil
}

// viaShowMessageRequest is the message card: a Warning with one action per option.
func (ap *approvals) viaShowMessageRequest(ctx context.Context, a wire.Approval) (string, error) {
	actions := make([]protocol.MessageActionItem, 0, len(a.Options))
	for _, o := range a.Options {
		actions = append(actions, protocol.MessageActionItem{Title: o.Name})
	}
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: a.Title + "\n" + a.Detail,
		Actions: actions,
	}
	var item *protocol.MessageActionItem
	if err := ap.s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, params, &item); err != nil {
		return "", err
	}
	if item == nil {
		return "", nil // dismissed: null is a denial
	}
	for _, o := range a.Options {
		if o.Name == item.Title {
			return o.OptionID, nil
		}
	}
	return "", fmt.Errorf("the client chose %q, which is not an option", item.Title)
}

// viaCodeActions is the code-action card: a message, a diagnostic on the task's
// document, and approval actions first in every code action answer.
func (ap *approvals) viaCodeActions(p *pendingApproval) {
	ap.mu.Lock()
	_, still := ap.pending[p.a.ApprovalID]
	p.viaActions = still
	uri := p.uri
	ap.mu.Unlock()
	if !still {
		return
	}
	ap.s.showMessage(logWarning, actionsMessage(p.a, uri != ""))
	if uri != "" {
		ap.publish(uri)
	}
}

// actionsMessage is the code-action-card window/showMessage. Its first line alone
// (Helix shows one) names what would run and how to answer; the full detail
// follows. A launch card asked before any didOpen has no diagnostic to
// carry its command line yet, so the message must.
func actionsMessage(a wire.Approval, hasDoc bool) string {
	subject := approvalSubject(a)
	var b strings.Builder
	b.WriteString("agentls: approval needed: " + subject)
	detail := strings.TrimSpace(a.Detail)
	if first, _, _ := strings.Cut(detail, "\n"); first != "" && !strings.Contains(subject, first) {
		b.WriteString(" — " + first)
	}
	where := "run code action"
	if !hasDoc {
		where = "open any file and run code action"
	}
	fmt.Fprintf(&b, " (%s 'agentls: %s: %s', or the command agentls.approve / agentls.deny for the oldest waiting)",
		where, firstOptionName(a), subject)
	if detail != "" {
		b.WriteString("\n" + detail)
	}
	return b.String()
}

// adopt gives code-action-card approvals that had no document to show their
// diagnostic on (a launch card asked before any didOpen) this one.
func (ap *approvals) adopt(uri string) {
	ap.mu.Lock()
	adopted := false
	for _, p := range ap.pending {
		if p.uri == "" {
			p.uri = uri
			adopted = adopted || p.viaActions
		}
	}
	ap.mu.Unlock()
	if adopted {
		ap.publish(uri)
	}
}

// publish sends the approval diagnostics of one document.
func (ap *approvals) publish(uri string) {
	ap.mu.Lock()
	var ps []*pendingApproval
	for _, p := range ap.pending {
		if p.viaActions && p.uri == uri {
			ps = append(ps, p)
		}
	}
	ap.mu.Unlock()
	sort.Slice(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
	diags := make([]protocol.Diagnostic, 0, len(ps))
	for _, p := range ps {
		pos := protocol.Position{Line: uint32(p.line)}
		diags = append(diags, protocol.Diagnostic{
			Range:    protocol.Range{Start: pos, End: pos},
			Severity: protocol.DiagnosticSeverityWarning,
			Source:   diagnosticSource,
			Code:     "approval",
			Message: fmt.Sprintf("agentls: approval needed: %s (code action 'agentls: %s')\n%s",
				approvalSubject(p.a), firstOptionName(p.a), p.a.Detail),
		})
	}
	ap.s.notify(protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: protocol.DocumentURI(uri), Diagnostics: diags,
	})
}

// diagnosticURI is where a code-action-card diagnostic goes: the task's document, else
// the first open document, else nowhere.
func (s *Server) diagnosticURI(path string) string {
	if path != "" {
		if doc, ok := s.docs.byPath(path); ok {
			return doc.uri
		}
		return pathToURI(path)
	}
	if doc, ok := s.docs.first(); ok {
		return doc.uri
	}
	return ""
}

// approvalSubject is how an approval is named in one line: "fs · write_file"
// for MCP calls, "run_command <argv>" for commands (their title, "Run
// command?", would make two waiting commands read alike), the title
// otherwise. Every part goes through trust.Visible: a server names its
// tools, and a newline, terminal escape or bidi override in a name would
// fake or hide part of the one line an editor like Helix shows.
func approvalSubject(a wire.Approval) string {
	switch {
	case a.Server != "" && a.Tool != "" && a.Kind != wire.ApprovalMCPLaunch:
		return trust.Visible(a.Server) + " · " + trust.Visible(a.Tool)
	case a.Kind == "command" && len(a.Command) > 0:
		tool := a.Tool
		if tool == "" {
			tool = "command"
		}
		return capRunes(trust.Visible(tool)+" "+trust.ShellQuote(a.Command), subjectMax)
	}
	return trust.Visible(a.Title)
}

// subjectMax caps a subject in a code action title (a picker line); the
// diagnostic and agent/approvals carry the whole command.
const subjectMax = 100

// capRunes cuts s to n runes, marking the cut.
func capRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func firstOptionName(a wire.Approval) string {
	if len(a.Options) > 0 {
		return a.Options[0].Name
	}
	return "Allow once"
}

// isMethodNotFound reports a -32601 error reply.
func isMethodNotFound(err error) bool {
	var w *jsonrpc.Error
	return errors.As(err, &w) && w.Code == jsonrpc.MethodNotFound
}

// mergeContexts is cancelled when either a or b is.
func mergeContexts(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}
