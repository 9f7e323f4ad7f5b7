package trust

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
)

// TestRemoteFingerprintAndCard: a remote server's fingerprint covers the
// URL, the header names and the variables each header reads, not literal
// values; its card shows the URL and which variables go to which origin,
// never a literal header value.
func TestRemoteFingerprintAndCard(t *testing.T) {
	base := config.Server{Name: "gh", Origin: config.Workspace, WorkspaceRoot: "/repo",
		Source: config.Source{File: "/repo/.agentls/config.toml", Line: 3},
		URL:    "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Key": "literal-secret-123"}}
	fp := ServerFingerprint(base)
	with := func(f func(*config.Server)) string {
		s := base
		s.Headers = map[string]string{}
		for k, v := range base.Headers {
			s.Headers[k] = v
		}
		f(&s)
		return ServerFingerprint(s)
	}
	changes := map[string]func(*config.Server){
		"another host":         func(s *config.Server) { s.URL = "https://evil.example.net/mcp" },
		"another path":         func(s *config.Server) { s.URL = "https://api.example.com/other" },
		"another header name":  func(s *config.Server) { s.Headers["X-Other"] = "x" },
		"a header removed":     func(s *config.Server) { delete(s.Headers, "X-Key") },
		"another variable":     func(s *config.Server) { s.Headers["Authorization"] = "Bearer ${AWS_SECRET_ACCESS_KEY}" },
		"a variable added":     func(s *config.Server) { s.Headers["X-Key"] = "${HOME}" },
		"the same as a launch": func(s *config.Server) { s.URL, s.Headers, s.Command = "", nil, "https://api.example.com/mcp" },
		"header moved to a name": func(s *config.Server) {
			s.Headers = map[string]string{"Authorization": "Bearer ${X_KEY}", "X-Key": "${GITHUB_TOKEN}"}
		},
	}
	for what, f := range changes {
		if with(f) == fp {
			t.Errorf("%s keeps the fingerprint", what)
		}
	}
	if with(func(s *config.Server) { s.Headers["X-Key"] = "another-literal" }) != fp {
		t.Error("a literal header value changed the fingerprint (values are not fingerprinted)")
	}
	title, detail := LaunchCard(base)
	for _, want := range []string{"remote MCP server 'gh'", "url:     https://api.example.com/mcp", "Authorization: reads GITHUB_TOKEN",
		"X-Key: a fixed value", "to https://api.example.com: GITHUB_TOKEN", "sha256:  " + fp} {
		if !strings.Contains(title+"\n"+detail, want) {
			t.Errorf("card lacks %q:\n%s\n%s", want, title, detail)
		}
	}
	if strings.Contains(detail, "literal-secret-123") || strings.Contains(detail, "command:") {
		t.Errorf("card shows a header value or a command:\n%s", detail)
	}
}
