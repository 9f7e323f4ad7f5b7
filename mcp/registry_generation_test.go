package mcp

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// TestToolsGenerationMovesWithEveryChangeToTheListing walks one fault
// server through each kind of change. After every step the generation must
// have moved if Tools() changed (and for every state change), and must
// stay put, with Tools() identical, when nothing happened.
func TestToolsGenerationMovesWithEveryChangeToTheListing(t *testing.T) {
	s := faultServer(t, "f")
	r := NewRegistry([]config.Server{s}, Options{RestartBackoff: time.Millisecond})
	t.Cleanup(func() {
		r.Close()
		testenv.WaitNoProcesses(t, markerOf(s), 10*time.Second)
	})
	has := func(name string) bool {
		for _, tool := range r.Tools() {
			if tool.Name == name {
				return true
			}
		}
		return false
	}
	waitState := func(want State) func() bool {
		return func() bool { return serverInfo(t, r, "f").State == want }
	}
	setRestarts := func(n int) {
		r.mu.Lock()
		r.servers["f"].restarts = n
		r.mu.Unlock()
	}
	gen, listed := r.ToolsGeneration(), r.Tools()
	for _, step := range []struct {
		name  string
		do    func()
		until func() bool // the change has landed
		moves bool
	}{
		{"nothing happening keeps it", func() {}, nil, false},
		{"connecting and listing moves it", func() { r.Start(context.Background()) }, waitState(Connected), true},
		{"reading the listing keeps it", func() { r.Tools(); r.Servers() }, nil, false},
		{"a successful call keeps it", func() { mustCall(t, r, "f__echo", `{"text":"x"}`, "x") }, nil, false},
		{"a list_changed re-list moves it", func() { mustCall(t, r, "f__add_tool", `{"name":"late_tool"}`, "added late_tool") },
			func() bool { return has("f__late_tool") }, true},
		{"the server dying moves it", func() { call(t, r, "f__die", `{}`) }, waitState(Failed), true},
		// A call resets the restart count without a notify: the shown set
		// is re-derived when the generation is read, so this moves it too.
		{"running out of restarts hides the tools and moves it", func() { setRestarts(DefaultMaxRestarts) }, nil, true},
		{"restarts granted again show the tools and move it", func() { setRestarts(0) }, nil, true},
		{"a restart on use moves it", func() { mustCall(t, r, "f__echo", `{"text":"back"}`, "back") }, waitState(Connected), true},
		{"an explicit restart moves it", func() {
			if _, err := r.Restart(context.Background(), "f"); err != nil {
				t.Fatalf("restart: %v", err)
			}
		}, waitState(Connected), true},
		{"an idle connected server keeps it", func() {}, nil, false},
		{"closing the registry moves it", func() { r.Close() }, nil, true},
	} {
		t.Run(step.name, func(t *testing.T) {
			before := r.Servers()[0].State
			step.do()
			if step.until != nil {
				eventually(t, step.name, step.until)
			}
			got, now := r.ToolsGeneration(), r.Tools()
			switch {
			case step.moves && got == gen:
				t.Errorf("generation stayed %d (state %s -> %s, %d -> %d tools)", gen, before, r.Servers()[0].State, len(listed), len(now))
			case !step.moves && got != gen:
				t.Errorf("generation moved %d -> %d with nothing changed", gen, got)
			case !step.moves && !reflect.DeepEqual(now, listed):
				t.Errorf("same generation %d, yet Tools() changed", got)
			}
			gen, listed = got, now
		})
	}
}

// TestToolsGenerationNeverRepeats: the counter only grows, so a value seen
// once is never seen again after a change.
func TestToolsGenerationNeverRepeats(t *testing.T) {
	r := NewRegistry([]config.Server{{Name: "off", Origin: config.User, Command: "x", Disabled: true}}, Options{})
	defer r.Close()
	g := r.ToolsGeneration()
	r.mu.Lock()
	r.notifyLocked()
	r.mu.Unlock()
	if g2 := r.ToolsGeneration(); g2 <= g {
		t.Fatalf("generation %d after a change, was %d: it must grow", g2, g)
	}
}
