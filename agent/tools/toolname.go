package tools

import "context"

// toolNameKey is the context key of WithToolName; unexported so no other
// package can set or shadow it.
type toolNameKey struct{}

// WithToolName returns ctx carrying the name of the tool on whose behalf
// the call is made. The built-in write tools set it on the ctx they pass to
// Workspace.WriteFile, so an implementation can say which tool edited a
// file (the LSP server labels its workspace/applyEdit with it) without the
// Workspace interface, which others implement, growing a parameter.
func WithToolName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, toolNameKey{}, name)
}

// ToolNameFromContext is the tool name WithToolName put on ctx, or "" when
// the call was not made for a tool (a Workspace must then use a generic
// label, never guess).
func ToolNameFromContext(ctx context.Context) string {
	name, _ := ctx.Value(toolNameKey{}).(string)
	return name
}
