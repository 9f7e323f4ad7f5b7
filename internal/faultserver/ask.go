package main

import (
	"context"
	"encoding/json"
	"fmt"
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
	// Count: how many copies of the question, all in one round (default 1).
	Count int `json:"count,omitempty"`
}

// pageDone is set once a required page was reported done.
var pageDone atomic.Bool

// addAsk adds "ask": it asks the client the form or URL question of its
// arguments (elicitation, as a multi round-trip input request, which the
// SDK turns into elicitation/create for a 2025-11-25 client) and returns
// the answer as JSON ({"action": ..., "content": ...}); with required, it
// refuses the call until a page was opened (-32042); with count, the
// same question count times in one round, and a JSON list of the answers.
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
			key := func(i int) string {
				if i == 0 {
					return "q"
				}
				return fmt.Sprintf("q%d", i)
			}
			if _, ok := req.Params.InputResponses["q"]; ok {
				var answers []any
				for i := range max(in.Count, 1) {
					if r, ok := req.Params.InputResponses[key(i)].(*mcp.ElicitResult); ok {
						answers = append(answers, map[string]any{"action": r.Action, "content": r.Content})
					}
				}
				var b []byte
				if in.Count > 1 {
					b, _ = json.Marshal(answers)
				} else if len(answers) == 1 {
					b, _ = json.Marshal(answers[0])
				}
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
			reqs := mcp.InputRequestMap{}
			for i := range max(in.Count, 1) {
				reqs[key(i)] = p
			}
			return &mcp.CallToolResult{InputRequests: reqs}, nil, nil
		})
}
