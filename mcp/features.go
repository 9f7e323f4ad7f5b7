//lint:file-ignore SA1019 roots and logging are client features of MCP 2025-11-25, which agentls still speaks to servers of that revision (and older); the SDK deprecates them from 2026-07-28 (SEP-2577), where the log level goes in each call's _meta

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress is one notifications/progress of a tool call, or the status of
// the task the server runs the call as.
type Progress struct {
	Progress float64
	Total    float64 // 0: unknown
	Message  string
	// Task is the server's taskId when this is a task's statusMessage,
	// which has no count.
	Task string
}

// String is the progress as a person reads it: "3/5", "40%" or "3", then
// the message (a task's status: the message alone).
func (p Progress) String() string {
	if p.Task != "" {
		return p.Message
	}
	s := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		s = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	}
	if p.Message != "" {
		s += ": " + p.Message
	}
	return s
}

// LogMessage is one notifications/message a server sent.
type LogMessage struct {
	Server string
	Level  string // debug, info, notice, warning, error, critical, alert, emergency
	Logger string
	Text   string // the data: a string as is, anything else as JSON
}

func (m LogMessage) String() string {
	s := m.Server + ": [" + m.Level + "]"
	if m.Logger != "" {
		s += " " + m.Logger + ":"
	}
	return s + " " + m.Text
}

// CallListener hears what a server says while one of the caller's tool
// calls runs: its progress, the server's log messages meanwhile, and the
// questions it asks the user (elicitation/create). Elicit must return
// within ctx (a cancelled ctx: decline); nil declines every question.
type CallListener struct {
	Progress func(Progress)
	Log      func(LogMessage)
	Elicit   func(ctx context.Context, e Elicitation) ElicitAnswer
}

type listenerKey struct{}

// WithListener makes calls under ctx ask the server for progress
// notifications (a progressToken) and hands them, and the server's log
// messages while the call runs, to l.
func WithListener(ctx context.Context, l CallListener) context.Context {
	return context.WithValue(ctx, listenerKey{}, &l)
}

func listenerOf(ctx context.Context) *CallListener {
	l, _ := ctx.Value(listenerKey{}).(*CallListener)
	return l
}

// nobodyToAsk marks a request that cannot put a question to the user
// (unless ctx already carries a listener that can): a question the server
// asks under it is declined, never handed to a tool call in flight.
func nobodyToAsk(ctx context.Context) context.Context {
	if l := listenerOf(ctx); l != nil && l.Elicit != nil {
		return ctx
	}
	return context.WithValue(ctx, listenerKey{}, &CallListener{})
}

// LogLevels are MCP's logging levels, least severe first.
var LogLevels = config.MCPLogLevels

func levelRank(level string) int {
	for i, l := range LogLevels {
		if l == level {
			return i
		}
	}
	return len(LogLevels) // unknown: shown
}

var progressSeq atomic.Int64

// listeners are the calls in flight on one connection that want progress.
type listeners struct {
	mu      sync.Mutex
	byToken map[string]*CallListener
	seq     map[string]int64 // when each was added
}

func (ls *listeners) add(l *CallListener) string {
	n := progressSeq.Add(1)
	token := fmt.Sprintf("agentls-%d", n)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.byToken == nil {
		ls.byToken, ls.seq = map[string]*CallListener{}, map[string]int64{}
	}
	ls.byToken[token], ls.seq[token] = l, n
	return token
}

// oldestEliciting is the call in flight longest that can ask the user.
func (ls *listeners) oldestEliciting() *CallListener {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var best *CallListener
	var bestSeq int64
	for tok, l := range ls.byToken {
		if l.Elicit != nil && (best == nil || ls.seq[tok] < bestSeq) {
			best, bestSeq = l, ls.seq[tok]
		}
	}
	return best
}

func (ls *listeners) remove(token string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	delete(ls.byToken, token)
	delete(ls.seq, token)
}

func (ls *listeners) get(token any) *CallListener {
	s, ok := token.(string)
	if !ok {
		return nil
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.byToken[s]
}

func (ls *listeners) all() []*CallListener {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	out := make([]*CallListener, 0, len(ls.byToken))
	for _, l := range ls.byToken {
		out = append(out, l)
	}
	return out
}

// onProgress routes a progress notification to its call.
func (c *conn) onProgress(p *sdk.ProgressNotificationParams) {
	if l := c.calls.get(p.ProgressToken); l != nil && l.Progress != nil {
		l.Progress(Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// onLog logs a server's message (at or above the level asked for) and
// hands it to every call in flight on this connection.
func (c *conn) onLog(p *sdk.LoggingMessageParams) {
	if levelRank(string(p.Level)) < levelRank(c.logLevel) {
		return // a server that ignores logging/setLevel
	}
	text, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		text = string(b)
	}
	const max = 2000
	if len(text) > max {
		text = text[:max] + "…"
	}
	m := LogMessage{Server: c.name, Level: string(p.Level), Logger: p.Logger, Text: text}
	if c.logf != nil {
		c.logf("mcp: %s", m)
	}
	for _, l := range c.calls.all() {
		if l.Log != nil {
			l.Log(m)
		}
	}
}

// rootsOf turns workspace folders into MCP roots (file:// URIs).
func rootsOf(folders []string) []*sdk.Root {
	out := make([]*sdk.Root, 0, len(folders))
	for _, f := range folders {
		if f == "" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		out = append(out, &sdk.Root{URI: u.String(), Name: filepath.Base(abs)})
	}
	return out
}

// SetRoots replaces the workspace folders every server sees as its roots;
// each connected server gets notifications/roots/list_changed (one for the
// folders added, one for those removed, in that order, so a server never
// sees an empty list in between) and lists them again. A server connecting
// meanwhile catches up once it is connected. It returns once every
// connected server was notified (each notification is bounded by the SDK).
func (r *Registry) SetRoots(folders []string) {
	roots := rootsOf(folders)
	r.mu.Lock()
	r.roots = roots
	var conns []*conn
	for _, srv := range r.servers {
		if srv.conn != nil {
			conns = append(conns, srv.conn)
		}
	}
	r.mu.Unlock()
	for _, c := range conns {
		r.syncRoots(c)
	}
}

// syncRoots brings one connection's roots to the registry's current ones.
// Serialized, so two changes in a row reach a server in order.
func (r *Registry) syncRoots(c *conn) {
	r.rootsMu.Lock()
	defer r.rootsMu.Unlock()
	want := r.currentRoots()
	keep := map[string]bool{}
	for _, rt := range want {
		keep[rt.URI] = true
	}
	had := map[string]bool{}
	var gone []string
	for _, rt := range c.roots {
		had[rt.URI] = true
		if !keep[rt.URI] {
			gone = append(gone, rt.URI)
		}
	}
	var added []*sdk.Root
	for _, rt := range want {
		if !had[rt.URI] {
			added = append(added, rt)
		}
	}
	if len(added) > 0 {
		c.cl.AddRoots(added...)
	}
	if len(gone) > 0 {
		c.cl.RemoveRoots(gone...)
	}
	c.roots = want
}

// sameRoots reports whether two root lists name the same URIs in order.
func sameRoots(a, b []*sdk.Root) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].URI != b[i].URI {
			return false
		}
	}
	return true
}

// Prompt is one prompt a server offers, as the server list shows it.
type Prompt = wire.Prompt

// PromptArgument is one argument of a prompt.
type PromptArgument = wire.PromptArgument

// Prompts are the prompts of every connected server, by server name, as
// listed at connect and after prompts/list_changed. Cheap: no server is
// asked and nothing but the listings is copied (code actions call it on
// every request).
func (r *Registry) Prompts() map[string][]Prompt {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]Prompt{}
	for name, srv := range r.servers {
		if srv.state == Connected && len(srv.prompts) > 0 {
			out[name] = append([]Prompt(nil), srv.prompts...)
		}
	}
	return out
}

// listPrompts reads every page of prompts/list within timeout; nil when the
// server has no prompts capability.
func (c *conn) listPrompts(ctx context.Context, timeout time.Duration) ([]Prompt, error) {
	if c.caps == nil || c.caps.Prompts == nil {
		return nil, nil
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	var out []Prompt
	for p, err := range c.session.Prompts(lctx, nil) {
		if err != nil {
			return nil, err
		}
		pr := Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GetPrompt runs one prompt of a server with its arguments and returns its
// messages as the text of one user turn: each message's text (an embedded
// text resource as its text, an image or other binary content described),
// messages apart by a blank line; when any message is not the user's, each
// starts with its role ("assistant: ..."). Capped like a tool result.
func (r *Registry) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	r.mu.Lock()
	srv, ok := r.servers[server]
	if !ok {
		r.mu.Unlock()
		return "", fmt.Errorf("mcp: no server named %q is configured", server)
	}
	c, state := srv.conn, srv.state
	r.mu.Unlock()
	if state != Connected || c == nil {
		return "", fmt.Errorf("mcp: %s is not connected (%s)", server, state)
	}
	timeout := srv.cfg.EffectiveCallTimeout()
	gctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	res, err := c.session.GetPrompt(nobodyToAsk(gctx), &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("mcp: %s: prompts/get %s: %w", server, name, err)
	}
	return capText(promptText(res.Messages), r.opts.ResultMaxBytes), nil
}

// promptText is prompt messages as one user turn's text.
func promptText(msgs []*sdk.PromptMessage) string {
	roles := false
	for _, m := range msgs {
		if m != nil && m.Role != "user" {
			roles = true
		}
	}
	var parts []string
	for _, m := range msgs {
		if m == nil {
			continue
		}
		text := describePromptContent(m.Content)
		if roles {
			text = string(m.Role) + ": " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n")
}

// describePromptContent is one message's content as text.
func describePromptContent(c sdk.Content) string {
	if img, ok := c.(*sdk.ImageContent); ok {
		return fmt.Sprintf("[image: %s, %s; not shown: agentls passes a prompt's images to the model as this description]", orUnknown(img.MIMEType, "image"), trust.ByteSize(len(img.Data)))
	}
	return describeContent(c)
}
