package server

import (
	"testing"

	"github.com/agentls/agentls/wire"
)

// TestEveryDeclaredMethodIsRouted holds the routes to package wire's
// declarations: every agent/* request and agentls.* command wire declares
// has exactly one route, and nothing is routed under the agent/ namespace
// or as a command that wire does not declare.
func TestEveryDeclaredMethodIsRouted(t *testing.T) {
	s := New(Options{})
	for _, tt := range []struct {
		dir    wire.Direction
		routes []route
		table  map[string]requestHandler
	}{
		{wire.ClientRequest, s.agentRoutes(), s.requests},
		{wire.CommandRequest, s.commandRoutes(), s.commands},
	} {
		declared := map[string]bool{}
		for _, m := range wire.MethodsOf(tt.dir) {
			declared[m.Name] = true
			if tt.table[m.Name] == nil {
				t.Errorf("%s (%s) is declared but has no route", m.Name, m.Doc)
			}
		}
		routed := map[string]bool{}
		for _, r := range tt.routes {
			if routed[r.method] {
				t.Errorf("%s is routed twice", r.method)
			}
			routed[r.method] = true
			if !declared[r.method] {
				t.Errorf("%s is routed but package wire does not declare it", r.method)
			}
		}
		if len(declared) < 10 {
			t.Errorf("wire declares %d methods of direction %d, want the whole contract", len(declared), tt.dir)
		}
	}
	if got, want := len(commandNames), len(wire.MethodsOf(wire.CommandRequest)); got != want {
		t.Errorf("executeCommandProvider announces %d commands, wire declares %d", got, want)
	}
}
