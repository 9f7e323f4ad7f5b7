package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/agentls/agentls/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool call a server refuses with URLElicitationRequired (-32042,
// MCP 2025-11-25) needs the user on one or more pages first (a sign-in,
// a consent). Each page is a URL question to the user, as an
// elicitation/create in url mode would be; once every one was opened,
// the call waits for the server's notifications/elicitation/complete for
// each, within what is left of its call_timeout, and is made once more.

// isURLRequired reports a -32042 error reply.
func isURLRequired(err error) bool {
	var werr *jsonrpc.Error
	return errors.As(err, &werr) && werr.Code == sdk.CodeURLElicitationRequired
}

// completions are the URL elicitations a connection waits to hear are done.
type completions struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func (cs *completions) wait(id string) (<-chan struct{}, func()) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.waiting == nil {
		cs.waiting = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	cs.waiting[id] = ch
	return ch, func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if cs.waiting[id] == ch {
			delete(cs.waiting, id)
		}
	}
}

func (cs *completions) done(id string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if ch, ok := cs.waiting[id]; ok {
		close(ch)
		delete(cs.waiting, id)
	}
}

// urlRequired puts each page of a -32042 refusal to the user through l and
// waits for the server to report it done. "" means: call again; anything
// else is why the call fails.
func (c *conn) urlRequired(ctx context.Context, l *CallListener, err error) string {
	var werr *jsonrpc.Error
	errors.As(err, &werr)
	var data struct {
		Elicitations []*sdk.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(werr.Data, &data) != nil || len(data.Elicitations) == 0 {
		return capText("the server needs a page opened first, but named none: "+werr.Message, 2000)
	}
	var waits []<-chan struct{}
	for _, p := range data.Elicitations {
		if p == nil || p.URL == "" || p.ElicitationID == "" || (p.Mode != "" && p.Mode != "url") {
			return "the server needs a page opened first, but sent no usable URL question"
		}
		ch, forget := c.done.wait(p.ElicitationID)
		defer forget()
		waits = append(waits, ch)
	}
	for _, p := range data.Elicitations {
		e := Elicitation{Server: c.name, ID: p.ElicitationID}
		e.Mode, e.Message, e.URL = wire.ElicitURL, p.Message, p.URL
		if ans := l.Elicit(ctx, e); ans.Action != wire.ElicitAccept {
			return fmt.Sprintf("the tool needs a page opened first (%s), and the user did not open it (%s)", hostOf(p.URL), ans.Action)
		}
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return "the page was opened, but the server did not report it done within call_timeout; call the tool again once it is finished"
		}
	}
	return ""
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return "a page"
}
