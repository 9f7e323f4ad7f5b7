package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/providers"
)

// TestConfigDocNamesEveryKey keeps docs/config.md true: every key the
// loader accepts has a row in its section's table, and the rows of keys
// with a default in this package show that default. A key added to the
// loader without documentation fails here.
func TestConfigDocNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "config.md"))
	if err != nil {
		t.Fatalf("reading docs/config.md: %v", err)
	}
	doc := string(b)
	sections := []struct {
		heading string
		keys    []string
	}{
		{"## `[model]`", modelKeys},
		{"## `[agent]`", agentKeys},
		{"## `[sessions]`", sessionsKeys},
		{"## `[mcp]`", mcpKeys},
		{"## `[mcp.servers.NAME]`", serverKeys},
		{"## `[prices]`", pricesKeys},
	}
	for _, s := range sections {
		body := section(doc, s.heading)
		if body == "" {
			t.Errorf("docs/config.md has no section %q", s.heading)
			continue
		}
		for _, k := range s.keys {
			if row(body, k) == "" {
				t.Errorf("docs/config.md section %s has no row for key %q", s.heading, k)
			}
		}
	}
	for _, top := range topKeys {
		if !strings.Contains(doc, "## `["+top+"]`") {
			t.Errorf("docs/config.md has no section for [%s]", top)
		}
	}
	defaults := []struct{ heading, key, want string }{
		{"## `[model]`", "max_tokens", fmt.Sprint(DefaultMaxTokens)},
		{"## `[model]`", "context_window", fmt.Sprint(providers.DefaultContextWindow)},
		{"## `[model]`", "max_tools", fmt.Sprint(providers.SpecOf(providers.ChatCompletions).MaxTools)},
		{"## `[model]`", "stream_idle_timeout", durationCell(DefaultStreamIdleTimeout)},
		{"## `[agent]`", "max_iterations", fmt.Sprint(DefaultMaxIterations)},
		{"## `[agent]`", "approval_timeout", durationCell(DefaultApprovalTimeout)},
		{"## `[sessions]`", "keep", fmt.Sprint(DefaultSessionsKeep)},
		{"## `[mcp]`", "startup_wait", durationCell(DefaultStartupWait)},
		{"## `[mcp]`", "result_max_bytes", fmt.Sprint(DefaultResultMaxBytes)},
		{"## `[mcp]`", "max_image_bytes", fmt.Sprint(DefaultMaxImageBytes)},
		{"## `[mcp]`", "description_max_chars", fmt.Sprint(DefaultDescriptionMaxChars)},
		{"## `[mcp]`", "max_tools_per_server", fmt.Sprint(DefaultMaxToolsPerServer)},
		{"## `[mcp]`", "tool_budget_tokens", fmt.Sprintf("%d%%", int(DefaultToolBudgetShare*100))},
		{"## `[mcp.servers.NAME]`", "connect_timeout", durationCell(DefaultConnectTimeout)},
		{"## `[mcp.servers.NAME]`", "list_timeout", durationCell(DefaultListTimeout)},
		{"## `[mcp.servers.NAME]`", "call_timeout", durationCell(DefaultCallTimeout)},
		{"## `[mcp]`", "log_level", `"` + DefaultMCPLogLevel + `"`},
	}
	for _, d := range defaults {
		r := row(section(doc, d.heading), d.key)
		if strings.HasPrefix(d.want, "duration:") {
			if got, ok := cellDuration(r); !ok || got.String() != strings.TrimPrefix(d.want, "duration:") {
				t.Errorf("docs/config.md: the row of %s %q does not show the default %s:\n%s", d.heading, d.key, strings.TrimPrefix(d.want, "duration:"), r)
			}
			continue
		}
		if !strings.Contains(r, d.want) {
			t.Errorf("docs/config.md: the row of %s %q does not show the default %s:\n%s", d.heading, d.key, d.want, r)
		}
	}
}

// section is the text under a heading, up to the next "## ".
func section(doc, heading string) string {
	i := strings.Index(doc, heading)
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// row is the table row of key in a section, or "".
func row(body, key string) string {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "| `"+key+"` |") {
			return l
		}
	}
	return ""
}

// durationCell is how the defaults table wants a duration default.
func durationCell(d time.Duration) string { return "duration:" + d.String() }

// cellDuration parses the default column of a row as a quoted duration.
func cellDuration(row string) (time.Duration, bool) {
	cells := strings.Split(row, "|")
	if len(cells) < 3 {
		return 0, false
	}
	d, err := time.ParseDuration(strings.Trim(strings.TrimSpace(cells[2]), "`\""))
	return d, err == nil
}
