package trust

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	ghp    = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	ghpat  = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	skAnt  = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
	skProj = "sk-proj-ABCDEFGHIJKLMNOPQRST1234"
	xoxb   = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	akia   = "AKIAIOSFODNN7EXAMPLE"
	jwt    = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

// TestRedact: every secret is gone from the output, and the text around it stays.
func TestRedact(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		secret string // must not survive
		keep   string // must survive
	}{
		{"github classic token by shape", "cloning with " + ghp + " now", ghp, "cloning with"},
		{"github fine-grained token by shape", "token: " + ghpat, ghpat, "token"},
		{"anthropic key by shape", "key " + skAnt, skAnt, "key "},
		{"openai project key by shape", skProj, skProj, ""},
		{"slack bot token by shape", "slack " + xoxb, xoxb, "slack"},
		{"aws access key id by shape", "aws " + akia + " done", akia, "done"},
		{"jwt by shape", "session " + jwt, jwt, "session"},
		{"bearer header keeps the scheme", "Authorization: Bearer abc.def-123", "abc.def-123", "Bearer"},
		{"basic header", "authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "Basic"},
		{"password in a url", "git clone https://bob:hunter2@example.com/r.git", "hunter2", "https://bob:"},
		{"key=value by name", "GITHUB_TOKEN=abc123 make", "abc123", "make"},
		{"json-ish key by name", `{"password": "hunter2", "user": "bob"}`, "hunter2", `"user": "bob"`},
		{"single-quoted value by name", "api_key='zzz999'", "zzz999", "api_key="},
		{"query parameter by name", "GET /x?access_token=qqq111&page=2", "qqq111", "page=2"},
		{"client secret by name", "client_secret: s3cr3t", "s3cr3t", "client_secret"},
		{"cookie by name", "Cookie: sid=abcdef", "sid=abcdef", "Cookie"},
		{"private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter", "b3BlbnNzaC1rZXk", "after"},
		{"author is not auth", "author: Alice", "", "Alice"},
		{"an MCP parameter header, as a header line", "Mcp-Param-Region: eu-secret-1", "eu-secret-1", "Mcp-Param-Region"},
		{"an MCP parameter header, in a JSON dump of headers", `{"Mcp-Method":"tools/call","mcp-param-tenant":"acme-42"}`, "acme-42", `"Mcp-Method":"tools/call"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.in)
			if tt.secret != "" && strings.Contains(got, tt.secret) {
				t.Fatalf("secret survived: %q", got)
			}
			if tt.secret != "" && !strings.Contains(got, Redacted) {
				t.Fatalf("no %s marker: %q", Redacted, got)
			}
			if !strings.Contains(got, tt.keep) {
				t.Fatalf("lost %q: %q", tt.keep, got)
			}
		})
	}
}

func TestRedactLeavesPlainTextAlone(t *testing.T) {
	for _, s := range []string{
		"the quick brown fox", "git status: clean", "see https://example.com/a/b", "sk-short", "risk-assessment-framework-version",
		"a=b c=d", "eyJ is how base64 JSON starts",
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"key named like a secret", `{"token":"abc","path":"a.go"}`, `{"path":"a.go","token":"[REDACTED]"}`},
		{"key names are case-insensitive", `{"X-Api-Key":"abc","Authorization":"Bearer zzz"}`, `{"Authorization":"[REDACTED]","X-Api-Key":"[REDACTED]"}`},
		{"nested objects", `{"a":{"b":{"password":"p"}}}`, `{"a":{"b":{"password":"[REDACTED]"}}}`},
		{"arrays of objects", `[{"secret":"s"},{"ok":"v"}]`, `[{"secret":"[REDACTED]"},{"ok":"v"}]`},
		{"a whole object under a secret key", `{"auth":{"user":"u","pass":"p"}}`, `{"auth":"[REDACTED]"}`},
		{"secret-shaped value under any key", `{"body":"use ` + ghp + ` please"}`, `{"body":"use [REDACTED] please"}`},
		{"bearer inside a string array", `{"headers":["Authorization: Bearer abcdef"]}`, `{"headers":["Authorization: Bearer [REDACTED]"]}`},
		{"name/value pair objects", `{"env":[{"name":"GITHUB_TOKEN","value":"v1"},{"name":"HOME","value":"/h"}]}`, `{"env":[{"name":"GITHUB_TOKEN","value":"[REDACTED]"},{"name":"HOME","value":"/h"}]}`},
		{"numeric secret", `{"pin_password":1234}`, `{"pin_password":"[REDACTED]"}`},
		{"token counts are not tokens", `{"max_tokens":100,"inputTokens":5}`, `{"inputTokens":5,"max_tokens":100}`},
		{"booleans and nulls are kept", `{"auth_required":true,"token":null}`, `{"auth_required":true,"token":null}`},
		{"html characters are not escaped", `{"q":"a<b>&c"}`, `{"q":"a<b>&c"}`},
		{"not JSON is redacted as text", `password=hunter2 not json`, `password=[REDACTED] not json`},
		{"jwt in a nested array", `[[["` + jwt + `"]]]`, `[[["[REDACTED]"]]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(RedactJSON([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("RedactJSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if strings.HasPrefix(tt.in, "{") || strings.HasPrefix(tt.in, "[") {
				if !json.Valid([]byte(got)) {
					t.Fatalf("output is not JSON: %s", got)
				}
			}
		})
	}
}

func TestRedactEnv(t *testing.T) {
	in := [][2]string{
		{"GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_short"},
		{"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI"},
		{"API_KEY", "${API_KEY}"},
		{"NODE_OPTIONS", "--require ./x.js"},
		{"DATABASE_URL", "postgres://app:pw123@db/app"},
		{"SLACK", xoxb},
		{"EMPTY_TOKEN", ""},
	}
	want := [][2]string{
		{"GITHUB_PERSONAL_ACCESS_TOKEN", Redacted},
		{"AWS_SECRET_ACCESS_KEY", Redacted},
		{"API_KEY", "${API_KEY}"},
		{"NODE_OPTIONS", "--require ./x.js"},
		{"DATABASE_URL", "postgres://app:" + Redacted + "@db/app"},
		{"SLACK", Redacted},
		{"EMPTY_TOKEN", ""},
	}
	got := RedactEnv(in)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if in[0][1] != "ghp_short" {
		t.Error("RedactEnv changed its input")
	}
}

func TestRedactArgv(t *testing.T) {
	in := []string{"docker", "run", "-e", "GITHUB_TOKEN", "-e", "TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUv", "--api-key", "plainvalue",
		"--token", "--verbose", "--password=hunter2", "-key", "k", "image", "--keyring-dir-not-a-value"}
	want := []string{"docker", "run", "-e", "GITHUB_TOKEN", "-e", "TOKEN=" + Redacted, "--api-key", Redacted,
		"--token", "--verbose", "--password=" + Redacted, "-key", Redacted, "image", "--keyring-dir-not-a-value"}
	got := RedactArgv(in)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("RedactArgv =\n %q\nwant\n %q", got, want)
	}
	if in[7] != "plainvalue" {
		t.Errorf("RedactArgv changed its input")
	}
}
