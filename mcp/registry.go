package mcp

// STUB: the contract other packages compile against. The mcp owner replaces
// the bodies; the signatures may grow but should not change.

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentls/agentls/config"
)

// Options configure a Registry. Zero values mean the SPEC.md defaults.
type Options struct {
	ResultMaxBytes      int
	DescriptionMaxChars int
	MaxToolsPerServer   int
	Reserved            []string   // built-in tool names no MCP tool may take
	Gate                LaunchGate // launch consent for workspace-tier servers
	Logf                func(format string, args ...any)
	OnChange            func() // a server's state or tool list changed
}

// Registry owns every configured MCP server of one agentls process.
type Registry struct{}

// NewRegistry makes a registry for the given servers; it starts nothing.
func NewRegistry(servers []config.Server, opts Options) *Registry { return &Registry{} }

// Start connects every startable server in the background, in parallel, and
// returns at once.
func (r *Registry) Start(ctx context.Context) {}

// StartServer (re)evaluates the gate for one server and connects it in the
// background; used after a launch approval.
func (r *Registry) StartServer(ctx context.Context, name string) (State, error) {
	return "", errors.New("unimplemented")
}

// Restart stops one server (reaping its processes) and connects it again.
func (r *Registry) Restart(ctx context.Context, name string) (State, error) {
	return "", errors.New("unimplemented")
}

// Wait returns when no server is connecting any more, or ctx ends.
func (r *Registry) Wait(ctx context.Context) {}

// Servers lists every configured server, sorted by name.
func (r *Registry) Servers() []ServerInfo { return nil }

// Server returns one configured server's config.
func (r *Registry) Server(name string) (config.Server, bool) { return config.Server{}, false }

// Tools lists the tools of connected servers, sorted by name.
func (r *Registry) Tools() []Tool { return nil }

// Call calls a namespaced tool. It never blocks past the server's call
// timeout; failures come back as a Result with IsError set.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) Result {
	return Result{Text: "ERROR: unimplemented", IsError: true}
}

// Resources lists the resources of every connected server that has any.
func (r *Registry) Resources(ctx context.Context) ([]Resource, error) { return nil, nil }

// ReadResource reads one resource from a server.
func (r *Registry) ReadResource(ctx context.Context, server, uri string) (*ResourceContent, error) {
	return nil, errors.New("unimplemented")
}

// Close stops every server and reaps every process it started.
func (r *Registry) Close() error { return nil }
