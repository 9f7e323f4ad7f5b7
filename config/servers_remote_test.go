package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteServerEntries: url and headers load as written (${VAR} kept);
// an entry with both command and url, stdio keys on a url entry, headers on
// a command entry, a bad url or a bad header is a clear error and the entry
// never starts.
func TestRemoteServerEntries(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	body := `
[mcp.servers.gh]
url = "https://api.example.com/mcp/"
headers = { Authorization = "Bearer ${GITHUB_TOKEN}", X-Team = "core" }
call_timeout = "5s"

[mcp.servers.both]
command = "server"
url = "https://example.com/mcp"

[mcp.servers.urlargs]
url = "https://example.com/mcp"
args = ["x"]

[mcp.servers.cmdheaders]
command = "server"
headers = { A = "b" }

[mcp.servers.ftp]
url = "ftp://example.com/mcp"

[mcp.servers.creds]
url = "https://user:pw@example.com/mcp"

[mcp.servers.badheader]
url = "https://example.com/mcp"
headers = { "Bad Name" = "x", Host = "y", B = "$TOKEN" }
`
	if err := os.WriteFile(user, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Load(user, nil)
	gh := serverNamed(t, c, "gh")
	if gh.Err != "" || !gh.Remote() || gh.URL != "https://api.example.com/mcp/" || gh.Headers["Authorization"] != "Bearer ${GITHUB_TOKEN}" ||
		gh.Headers["X-Team"] != "core" || gh.Cwd != "" || gh.Command != "" {
		t.Errorf("gh = %+v", gh)
	}
	for name, want := range map[string][]string{
		"both":       {"both command and url are set", "not both"},
		"urlargs":    {"args is for a server agentls starts"},
		"cmdheaders": {"headers is for a remote server"},
		"ftp":        {"expected an http or https URL"},
		"creds":      {"carries credentials", "headers"},
		"badheader":  {`invalid header name "Bad Name"`, `header "Host" is set by agentls`, "$TOKEN is not expanded"},
	} {
		s := serverNamed(t, c, name)
		for _, w := range want {
			if !strings.Contains(s.Err, w) {
				t.Errorf("%s: error %q lacks %q", name, s.Err, w)
			}
		}
		if strings.Contains(s.Err, "pw@") {
			t.Errorf("%s: error shows the URL's password: %q", name, s.Err)
		}
	}
	got, err := gh.ExpandedHeaders(func(k string) (string, bool) {
		if k == "GITHUB_TOKEN" {
			return "tok", true
		}
		return "", false
	})
	if err != nil || got["Authorization"] != "Bearer tok" || got["X-Team"] != "core" {
		t.Errorf("ExpandedHeaders = %v, %v", got, err)
	}
	if _, err := gh.ExpandedHeaders(func(string) (string, bool) { return "", false }); err == nil ||
		!strings.Contains(err.Error(), "header Authorization") || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("unset variable: %v", err)
	}
	if _, err := gh.ExpandedHeaders(func(string) (string, bool) { return "a\r\nX-Evil: 1", true }); err == nil {
		t.Error("a value with a line break was accepted")
	}
}

// TestMCPLogLevel: [mcp] log_level takes MCP's levels, defaults to
// warning, refuses anything else and is the user's alone.
func TestMCPLogLevel(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if c := Load("", nil); c.MCP.LogLevel != "warning" {
		t.Errorf("default log_level = %q", c.MCP.LogLevel)
	}
	if c := Load(write("a.toml", "[mcp]\nlog_level = \"debug\"\n"), nil); c.MCP.LogLevel != "debug" {
		t.Errorf("log_level = %q, want debug", c.MCP.LogLevel)
	}
	c := Load(write("b.toml", "[mcp]\nlog_level = \"verbose\"\n"), nil)
	if c.MCP.LogLevel != "warning" || len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, "expected one of debug, info") {
		t.Errorf("bad log_level: %q, %v", c.MCP.LogLevel, c.Diagnostics)
	}
}
