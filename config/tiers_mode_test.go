package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

func TestTheModeKey(t *testing.T) {
	tests := []struct {
		name, toml string
		want       wire.Mode
		diag       string
	}{
		{"left out it is ask", "", wire.ModeAsk, ""},
		{"plan", "[agent]\nmode = \"plan\"\n", wire.ModePlan, ""},
		{"auto-edit", "[agent]\nmode = \"auto-edit\"\n", wire.ModeAutoEdit, ""},
		{"autopilot = true is mode autopilot", "[agent]\nautopilot = true\n", wire.ModeAutopilot, ""},
		{"mode wins over autopilot", "[agent]\nautopilot = true\nmode = \"plan\"\n", wire.ModePlan, ""},
		{"an unknown mode keeps the default", "[agent]\nmode = \"yolo\"\n", wire.ModeAsk, "expected one of plan, ask, auto-edit, autopilot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.toml")
			write(t, p, tt.toml)
			c := Load(p, nil)
			if c.Agent.Mode != tt.want || c.Agent.Autopilot != (tt.want == wire.ModeAutopilot) {
				t.Errorf("mode %q autopilot %v; want %q", c.Agent.Mode, c.Agent.Autopilot, tt.want)
			}
			if tt.diag == "" && len(c.Diagnostics) > 0 || tt.diag != "" && (len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, tt.diag)) {
				t.Errorf("diagnostics %+v; want %q", c.Diagnostics, tt.diag)
			}
		})
	}
}
