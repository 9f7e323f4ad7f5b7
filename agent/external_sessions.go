package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// The two tools only outside clients get (their names are in mode.go):
// agentls's sessions of this workspace and a session's transcript. Both
// live in agentls's state folder, which agentls's own agent never reads
// without a card (a secret path, tools.Secrets), so each call asks too.

type sessionsTool struct{ c *Core }

func (sessionsTool) Def() model.ToolDef {
	return model.ToolDef{Name: SessionsToolName,
		Description: "List agentls's stored conversations of this workspace, newest first: id, title, turns, last update. Asks the user.",
		Schema:      json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (sessionsTool) Plan(*tools.Env, json.RawMessage) tools.Plan {
	return tools.Plan{Title: "list agentls sessions", Kind: wire.KindRead, MayAsk: true}
}

func (t sessionsTool) Run(ctx context.Context, _ *tools.Env, call tools.Call, _ json.RawMessage) (tools.Result, error) {
	if _, err := call.Gate(ctx, trust.Decision{Action: trust.Ask, Reason: "agentls's sessions are in its state folder"}, wire.Approval{
		Kind: wire.ApprovalRead, Tool: SessionsToolName, Title: "List your agentls sessions of this workspace?",
		Detail:  "the id, title (the first line of its first prompt), turns and last update of each stored session of " + trust.Visible(t.c.root),
		Options: []wire.ApprovalOption{tools.AllowOnce, tools.RejectOnce},
	}, tools.Keep{}); err != nil {
		return tools.Result{}, err
	}
	list, err := t.c.Sessions()
	if err != nil {
		return tools.Result{}, err
	}
	if len(list) == 0 {
		return tools.Result{Text: "no stored sessions in this workspace"}, nil
	}
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "%s\t%s\t%d turns\t%s\n", s.SessionID, trust.Redact(trust.Visible(s.Title)), s.Turns, s.UpdatedAt.UTC().Format("2006-01-02 15:04"))
	}
	return tools.Result{Text: b.String()}, nil
}

type transcriptTool struct{ c *Core }

func (transcriptTool) Def() model.ToolDef {
	return model.ToolDef{Name: TranscriptToolName,
		Description: "Read the Markdown transcript of one agentls session (secrets redacted), by the id agentls_sessions lists. Asks the user.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"sessionId":{"type":"string","description":"the session's id"}},"required":["sessionId"]}`)}
}

func (transcriptTool) Plan(*tools.Env, json.RawMessage) tools.Plan {
	return tools.Plan{Title: "read an agentls transcript", Kind: wire.KindRead, MayAsk: true}
}

func (t transcriptTool) Run(ctx context.Context, _ *tools.Env, call tools.Call, in json.RawMessage) (tools.Result, error) {
	var a struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.SessionID == "" {
		return tools.Result{}, errors.New(`sessionId is required: give {"sessionId": "<an id agentls_sessions lists>"}`)
	}
	if err := session.CheckID(a.SessionID); err != nil {
		return tools.Result{}, err
	}
	path := t.c.TranscriptPath(a.SessionID)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return tools.Result{}, fmt.Errorf("no transcript for session %s in this workspace's state", a.SessionID)
	}
	if _, err := call.Gate(ctx, trust.Decision{Action: trust.Ask, Reason: "a transcript is in agentls's state folder"}, wire.Approval{
		Kind: wire.ApprovalRead, Tool: TranscriptToolName, Title: "Read the transcript of agentls session " + a.SessionID + "?",
		Detail:  trust.Visible(path) + "\n\nthe whole conversation (secrets redacted) goes to the client",
		Options: []wire.ApprovalOption{tools.AllowOnce, tools.RejectOnce},
	}, tools.Keep{}); err != nil {
		return tools.Result{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: string(b)}, nil
}
