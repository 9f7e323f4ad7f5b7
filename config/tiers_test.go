package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMaxImageBytes(t *testing.T) {
	tests := []struct {
		name, toml string
		want       int
		diag       string // a diagnostic on mcp.max_image_bytes containing this, or none
	}{
		{"the user file sets it", "[mcp]\nmax_image_bytes = 2048\n", 2048, ""},
		{"a negative value keeps the default and says so", "[mcp]\nmax_image_bytes = -1\n", DefaultMaxImageBytes, "the default is used"},
		{"a string keeps the default and says so", "[mcp]\nmax_image_bytes = \"big\"\n", DefaultMaxImageBytes, "the default is used"},
		{"left out it is the default", "[mcp]\nresult_max_bytes = 100\n", DefaultMaxImageBytes, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.toml")
			write(t, p, tc.toml)
			c := Load(p, nil)
			if c.MCP.MaxImageBytes != tc.want {
				t.Errorf("MaxImageBytes = %d; want %d", c.MCP.MaxImageBytes, tc.want)
			}
			var got []string
			for _, d := range c.Diagnostics {
				if d.Key == "mcp.max_image_bytes" {
					got = append(got, d.Message)
				}
			}
			if tc.diag == "" && len(got) > 0 || tc.diag != "" && (len(got) != 1 || !strings.Contains(got[0], tc.diag)) {
				t.Errorf("diagnostics on mcp.max_image_bytes = %q; want one containing %q", got, tc.diag)
			}
		})
	}
}

func TestMaxImageBytesIsUserTierOnly(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".agentls", "config.toml"), "[mcp]\nmax_image_bytes = 100000000\n")
	c := Load("", []string{root})
	if c.MCP.MaxImageBytes != DefaultMaxImageBytes {
		t.Errorf("a workspace file set MaxImageBytes to %d; want the default %d", c.MCP.MaxImageBytes, DefaultMaxImageBytes)
	}
}

func TestImagesKey(t *testing.T) {
	for _, tc := range []struct {
		toml string
		want *bool
		diag bool
	}{
		{"[model]\nimages = false\n", ptr(false), false},
		{"[model]\nimages = true\n", ptr(true), false},
		{"[model]\nname = \"x\"\n", nil, false},
		{"[model]\nimages = \"yes\"\n", nil, true},
	} {
		p := filepath.Join(t.TempDir(), "config.toml")
		write(t, p, tc.toml)
		c := Load(p, nil)
		got := c.Model.Images
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%q: Images = %v; want %v", tc.toml, got, tc.want)
		}
		diag := false
		for _, d := range c.Diagnostics {
			diag = diag || d.Key == "model.images"
		}
		if diag != tc.diag {
			t.Errorf("%q: a diagnostic on model.images: %v; want %v (%v)", tc.toml, diag, tc.diag, c.Diagnostics)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestSessionsTable(t *testing.T) {
	tests := []struct {
		name, toml string
		keep       int
		age        time.Duration
		diag       string // a diagnostic on a sessions key containing this, or none
	}{
		{"left out: the defaults", "", DefaultSessionsKeep, 0, ""},
		{"keep and an age in days", "[sessions]\nkeep = 20\nmax_age = \"30d\"\n", 20, 30 * 24 * time.Hour, ""},
		{"an age as a duration", "[sessions]\nmax_age = \"36h\"\n", DefaultSessionsKeep, 36 * time.Hour, ""},
		{"keep 0 keeps the default and says so", "[sessions]\nkeep = 0\n", DefaultSessionsKeep, 0, "the default is used"},
		{"a bad age says what is expected", "[sessions]\nmax_age = \"a month\"\n", DefaultSessionsKeep, 0, `like "30d"`},
		{"an unknown key names the known ones", "[sessions]\nkepp = 3\n", DefaultSessionsKeep, 0, "max_age"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.toml")
			write(t, p, tc.toml)
			c := Load(p, nil)
			if c.Sessions.Keep != tc.keep || c.Sessions.MaxAge != tc.age {
				t.Errorf("sessions = %+v; want keep %d, max_age %v", c.Sessions, tc.keep, tc.age)
			}
			var got []string
			for _, d := range c.Diagnostics {
				if strings.HasPrefix(d.Key, "sessions.") {
					got = append(got, d.Message)
				}
			}
			if tc.diag == "" && len(got) > 0 || tc.diag != "" && (len(got) != 1 || !strings.Contains(got[0], tc.diag)) {
				t.Errorf("diagnostics on [sessions] = %q; want one containing %q", got, tc.diag)
			}
		})
	}
}

// A repository's config must not delete the user's sessions.
func TestSessionsIsUserTierOnly(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".agentls", "config.toml"), "[sessions]\nkeep = 1\nmax_age = \"1h\"\n")
	c := Load("", []string{root})
	if c.Sessions.Keep != DefaultSessionsKeep || c.Sessions.MaxAge != 0 {
		t.Errorf("a workspace file set sessions to %+v; want the defaults", c.Sessions)
	}
	if d := diagFor(t, c, "sessions.keep"); !strings.Contains(d.Message, "only the user config") {
		t.Errorf("diagnostic %q does not say only the user config may set it", d.Message)
	}
}
