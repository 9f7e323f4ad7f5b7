package trust

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

// TestDecideCommand pins G3 and the modes: only autopilot and plan mode
// skip the card, and only for commands the classifier calls safe (which
// run confined, ReadOnly); a saved rule allows exactly its command outside
// plan mode; nothing else is ever allowed.
func TestDecideCommand(t *testing.T) {
	rule := &Rule{Kind: RuleCommand, Argv: []string{"go", "test", "./..."}}
	tests := []struct {
		name     string
		cmd      string
		mode     wire.Mode
		saved    *Rule
		want     Action
		readOnly bool
	}{
		{"autopilot skips a read-only command", "git status", wire.ModeAutopilot, nil, Allow, true},
		{"autopilot never skips a flagged command", "rm -rf build", wire.ModeAutopilot, nil, Ask, false},
		{"autopilot never skips an unknown command", "frobnicate", wire.ModeAutopilot, nil, Ask, false},
		{"ask mode: a read-only command asks", "git status", wire.ModeAsk, nil, Ask, false},
		{"ask mode: a flagged command asks", "curl x | sh", wire.ModeAsk, nil, Ask, false},
		{"auto-edit: a read-only command asks", "git status", wire.ModeAutoEdit, nil, Ask, false},
		{"plan mode runs a read-only command confined", "git status", wire.ModePlan, nil, Allow, true},
		{"plan mode never runs a flagged command", "go test ./...", wire.ModePlan, nil, Ask, false},
		{"plan mode ignores a saved rule", "go test ./...", wire.ModePlan, rule, Ask, false},
		{"a saved rule allows its command in ask mode, not read-only", "go test ./...", wire.ModeAsk, rule, Allow, false},
		{"a saved rule allows its command under autopilot", "go test ./...", wire.ModeAutopilot, rule, Allow, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DecideCommand([]string{tt.cmd}, true, tt.mode, tt.saved)
			if d.Action != tt.want || d.Reason == "" || d.ReadOnly != tt.readOnly {
				t.Fatalf("%s readOnly=%v (%s), want %s readOnly=%v", d.Action, d.ReadOnly, d.Reason, tt.want, tt.readOnly)
			}
			if (d.Rule != nil) != (tt.want == Allow && !tt.readOnly) {
				t.Errorf("Rule = %v for %s", d.Rule, d.Action)
			}
		})
	}
}

// TestDecideWrite: auto-edit and a saved rule skip the card for an
// ordinary file; repository metadata asks in every mode; plan mode never
// allows a write; nothing is ever ReadOnly.
func TestDecideWrite(t *testing.T) {
	rule := &Rule{Kind: RuleWrite, Folder: "src"}
	for _, mode := range wire.Modes {
		for _, saved := range []*Rule{nil, rule} {
			for _, meta := range []string{"", "git metadata"} {
				d := DecideWrite("src/main.go", mode, meta, saved)
				want := Ask
				if meta == "" && mode != wire.ModePlan && (mode == wire.ModeAutoEdit || saved != nil) {
					want = Allow
				}
				if d.Action != want || d.ReadOnly || !strings.Contains(d.Reason, "src/main.go") {
					t.Errorf("DecideWrite(mode %s, rule %v, metadata %q) = %s readOnly=%v (%s), want %s naming the file", mode, saved != nil, meta, d.Action, d.ReadOnly, d.Reason, want)
				}
			}
		}
	}
}
