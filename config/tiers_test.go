package config

import (
	"path/filepath"
	"strings"
	"testing"
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
