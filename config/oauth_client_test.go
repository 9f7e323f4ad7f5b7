package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckClientMetadataURL: a client_id URL is https with a path to the
// document; anything else is refused with what was wrong and what is
// expected. Load-bearing direction: the refusals (an http document could
// be rewritten on the way to the authorization server).
func TestCheckClientMetadataURL(t *testing.T) {
	for _, tc := range []struct{ url, err string }{
		{"https://example.com/agentls/client.json", ""},
		{"https://127.0.0.1:8443/client.json", ""},
		{"https://example.com/c?v=2", ""},
		{"http://example.com/client.json", "must be served over https"},
		{"http://127.0.0.1/client.json", "must be served over https"},
		{"example.com/client.json", "must be served over https"},
		{"https://example.com", "names no document"},
		{"https://example.com/", "names no document"},
		{"https://user:pw@example.com/client.json", "carries credentials"},
		{"https://example.com/client.json#x", "has a fragment"},
		{"https://example.com/a/../client.json", `".." path segment`},
		{"https://example.com/./client.json", `"." path segment`},
		{"https:///client.json", "has no host"},
	} {
		err := CheckClientMetadataURL(tc.url)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v; want accepted", tc.url, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v; want an error containing %q", tc.url, err, tc.err)
		case err != nil && !strings.Contains(err.Error(), "expected the https URL"):
			t.Errorf("%q: %v does not say what is expected", tc.url, err)
		case err != nil && strings.Contains(err.Error(), "pw@"):
			t.Errorf("%q: the error shows the password: %v", tc.url, err)
		}
	}
}

// TestClientMetadataURLTiers: [mcp] oauth_client_metadata_url applies to
// every remote server, a user entry's own replaces it ("" opts out), a
// repository can set neither (it must not choose the client the user's
// authorization servers see), and a bad URL is an error that keeps the
// entry from starting.
func TestClientMetadataURLTiers(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	user := filepath.Join(dir, "config.toml")
	write(t, user, `
[mcp]
oauth_client_metadata_url = "https://example.com/agentls/client.json"

[mcp.servers.global]
url = "https://a.example.com/mcp"

[mcp.servers.own]
url = "https://b.example.com/mcp"
oauth_client_metadata_url = "https://example.com/other.json"

[mcp.servers.optout]
url = "https://c.example.com/mcp"
oauth_client_metadata_url = ""

[mcp.servers.plain]
url = "https://d.example.com/mcp"
oauth_client_metadata_url = "http://example.com/client.json"

[mcp.servers.local]
command = "server"
oauth_client_metadata_url = "https://example.com/agentls/client.json"
`)
	write(t, filepath.Join(root, ".agentls", "config.toml"), `
[mcp]
oauth_client_metadata_url = "https://evil.example/client.json"

[mcp.servers.repo]
url = "https://e.example.com/mcp"
oauth_client_metadata_url = "https://evil.example/client.json"
`)
	c := Load(user, []string{root})
	if c.MCP.OAuthClientMetadataURL != "https://example.com/agentls/client.json" {
		t.Errorf("[mcp] oauth_client_metadata_url = %q", c.MCP.OAuthClientMetadataURL)
	}
	for name, want := range map[string]string{
		"global": "https://example.com/agentls/client.json",
		"own":    "https://example.com/other.json",
		"optout": "",
		"repo":   "https://example.com/agentls/client.json",
	} {
		if s := serverNamed(t, c, name); s.OAuthClientMetadataURL != want || s.Err != "" {
			t.Errorf("%s: OAuthClientMetadataURL %q (err %q); want %q", name, s.OAuthClientMetadataURL, s.Err, want)
		}
	}
	if s := serverNamed(t, c, "plain"); !strings.Contains(s.Err, "must be served over https") {
		t.Errorf("plain: Err %q; want the https error", s.Err)
	}
	if s := serverNamed(t, c, "local"); !strings.Contains(s.Err, "oauth_client_metadata_url is for a remote server") {
		t.Errorf("local: Err %q; want it refused on a command entry", s.Err)
	}
	warned := map[string]bool{}
	for _, d := range c.Diagnostics {
		if strings.Contains(d.Message, "must not choose the OAuth client") {
			warned[d.Key] = true
		}
	}
	for _, k := range []string{"mcp.oauth_client_metadata_url", "mcp.servers.repo.oauth_client_metadata_url"} {
		if !warned[k] {
			t.Errorf("no warning on the workspace's %s: %v", k, c.Diagnostics)
		}
	}
}
