//lint:file-ignore SA1019 roots are a client feature of MCP 2025-11-25, the version this mode speaks; the SDK deprecates them only from 2026-07-28 (SEP-2577)

package main

import (
	"context"
	"flag"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var withRoots = flag.Bool("roots", false, `add a tool "roots": it asks the client for its roots (roots/list) and returns their URIs, one a line; the server then speaks protocol version 2025-11-25`)

// addRoots lets tests see the roots a client gives, as a server asks them.
func addRoots(s *mcp.Server) {
	if !*withRoots {
		return
	}
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots (roots/list).", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text("roots: " + strings.Join(uris, "\n")), nil, nil
		})
}
