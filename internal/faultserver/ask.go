package main

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type askIn struct {
	Message string         `json:"message"`
	Schema  map[string]any `json:"schema,omitempty"` // a form's requestedSchema
	URL     string         `json:"url,omitempty"`    // set: a URL question instead
	// Required: refuse the call with URLElicitationRequired (-32042) for
	// URL, report the page done 200 ms later, then answer the next call.
	Required bool `json:"required,omitempty"`
}

// pageDone is set once a required page was reported done.
var pageDone atomic.Bool

// addAsk adds "ask": it asks the client the form or URL question of its
// arguments (elicitation, as a multi round-trip input request, which the
// SDK turns into elicitation/create for a 2025-11-25 client) and returns
// the answer as JSON ({"action": ..., "content": ...}); with required, it
// refuses the call until a page was opened (-32042).
func addAsk(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the user a question (elicitation) and returns the answer as JSON."},
		func(_ context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
			if in.Required {
				if pageDone.Load() {
					return text("done after the page"), nil, nil
				}
				ss := req.Session
				time.AfterFunc(200*time.Millisecond, func() {
					pageDone.Store(true)
					ss.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: "page-1"})
				})
				return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", URL: in.URL, ElicitationID: "page-1", Message: in.Message}})
			}
			if r, ok := req.Params.InputResponses["q"].(*mcp.ElicitResult); ok {
				b, _ := json.Marshal(map[string]any{"action": r.Action, "content": r.Content})
				return text(string(b)), nil, nil
			}
			p := &mcp.ElicitParams{Message: in.Message}
			if in.URL != "" {
				p.Mode, p.URL, p.ElicitationID = "url", in.URL, "ask-1"
			} else {
				p.Mode, p.RequestedSchema = "form", in.Schema
				if in.Schema == nil {
					p.RequestedSchema = map[string]any{"type": "object", "properties": map[string]any{}}
				}
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": p}}, nil, nil
		})
}
