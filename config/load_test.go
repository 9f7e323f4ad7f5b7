package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/wire"
)

// renderDiags writes each diagnostic as "file:line severity key", file
// relative to testdata, so a table can state exactly what must be reported.
func renderDiags(td string, ds []Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		f, err := filepath.Rel(td, d.Source.File)
		if err != nil || strings.HasPrefix(f, "..") {
			f = d.Source.File
		}
		out = append(out, fmt.Sprintf("%s:%d %s %s", filepath.ToSlash(f), d.Source.Line, d.Severity, d.Key))
	}
	return out
}

func diagFor(t *testing.T, c *Config, key string) Diagnostic {
	t.Helper()
	for _, d := range c.Diagnostics {
		if d.Key == key {
			return d
		}
	}
	t.Fatalf("no diagnostic for %s in %v", key, c.Diagnostics)
	return Diagnostic{}
}

func serverNamed(t *testing.T, c *Config, name string) Server {
	t.Helper()
	for _, s := range c.MCP.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, c.MCP.Servers)
	return Server{}
}

func serverNames(c *Config) []string {
	var names []string
	for _, s := range c.MCP.Servers {
		names = append(names, s.Name)
	}
	return names
}

func wantContains(t *testing.T, what, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("%s = %q; want it to contain %q", what, got, s)
		}
	}
}

func TestLoad(t *testing.T) {
	td, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	ws := func(name string) string { return filepath.Join(td, "ws", name) }
	wsFile := func(name string) string { return "ws/" + name + "/.agentls/config.toml" }
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		user  string // under testdata; "" reads no user file
		roots []string
		diags []string
		check func(t *testing.T, c *Config)
	}{
		{
			name:  "no files means SPEC defaults",
			diags: []string{},
			check: func(t *testing.T, c *Config) {
				want := Defaults()
				if c.Model != want.Model || c.Agent != want.Agent || c.MCP.StartupWait != 5*time.Second ||
					c.MCP.ResultMaxBytes != 65536 || c.MCP.MaxImageBytes != 5<<20 || c.MCP.DescriptionMaxChars != 1024 || c.MCP.MaxToolsPerServer != 64 ||
					c.Model.MaxTokens != 8192 || c.Agent.MaxIterations != 25 || c.Agent.ApprovalTimeout != 5*time.Minute {
					t.Errorf("defaults: got %+v", c)
				}
				if c.UserFile != "" || len(c.WorkspaceFiles) != 0 || len(c.MCP.Servers) != 0 {
					t.Errorf("no file was read, got UserFile=%q WorkspaceFiles=%v", c.UserFile, c.WorkspaceFiles)
				}
			},
		},
		{
			name:  "missing user file is no diagnostic",
			user:  "does_not_exist.toml",
			diags: []string{},
			check: func(t *testing.T, c *Config) {
				if c.UserFile != "" {
					t.Errorf("UserFile = %q; want empty for a missing file", c.UserFile)
				}
			},
		},
		{
			name:  "unreadable user file is an error",
			user:  "ws",
			diags: []string{"ws:0 error "},
			check: func(t *testing.T, c *Config) {
				wantContains(t, "message", c.Diagnostics[0].Message, "cannot read config file")
			},
		},
		{
			name:  "user tier sets every key of the spec",
			user:  "user_full.toml",
			roots: []string{ws("none")},
			diags: []string{},
			check: func(t *testing.T, c *Config) {
				wantModel := Model{Provider: "anthropic", Name: "claude-sonnet-4-5", BaseURL: "http://127.0.0.1:11434/v1", APIKeyEnv: "ANTHROPIC_API_KEY", MaxTokens: 4096, StreamIdleTimeout: DefaultStreamIdleTimeout}
				if c.Model != wantModel {
					t.Errorf("Model = %+v; want %+v", c.Model, wantModel)
				}
				if want := (Agent{MaxIterations: 10, Mode: wire.ModeAutopilot, Autopilot: true, ApprovalTimeout: 2 * time.Minute}); c.Agent != want {
					t.Errorf("Agent = %+v; want %+v", c.Agent, want)
				}
				if c.MCP.StartupWait != 3*time.Second || c.MCP.ResultMaxBytes != 1000 || c.MCP.DescriptionMaxChars != 200 || c.MCP.MaxToolsPerServer != 8 {
					t.Errorf("MCP limits = %+v", c.MCP)
				}
				if got := serverNames(c); !slices.Equal(got, []string{"fs", "github"}) {
					t.Errorf("servers = %v; want sorted [fs github]", got)
				}
				gh := serverNamed(t, c, "github")
				if gh.Origin != User || gh.Command != "docker" || len(gh.Args) != 6 || gh.Args[5] != "ghcr.io/github/github-mcp-server" ||
					gh.Env["TOKEN"] != "${GH_TOKEN:-none}" || gh.Env["GITHUB_TOOLSETS"] != "pull_requests,repos,issues" ||
					gh.ConnectTimeout != 10*time.Second || gh.ListTimeout != 20*time.Second || gh.CallTimeout != 90*time.Second ||
					!gh.Disabled || gh.Err != "" {
					t.Errorf("github = %+v", gh)
				}
				if want := (Source{File: filepath.Join(td, "user_full.toml"), Line: 20}); gh.Source != want {
					t.Errorf("github.Source = %v; want %v", gh.Source, want)
				}
				fs := serverNamed(t, c, "fs")
				if fs.Cwd != filepath.Join(td, "sub", "dir") || fs.WorkspaceRoot != ws("none") || !slices.Equal(fs.Args, []string{ws("none")}) {
					t.Errorf("fs cwd %q root %q args %q: a user server's relative cwd resolves against the config file's folder, never the workspace; ${workspaceFolder} is the workspace root",
						fs.Cwd, fs.WorkspaceRoot, fs.Args)
				}
				if fs.ConnectTimeout != 30*time.Second || fs.ListTimeout != 30*time.Second || fs.CallTimeout != 120*time.Second {
					t.Errorf("fs timeouts = %v %v %v; want the defaults", fs.ConnectTimeout, fs.ListTimeout, fs.CallTimeout)
				}
				var rules []string
				for _, r := range c.MCP.Policy {
					rules = append(rules, fmt.Sprintf("%s=%s %s:%d", r.Pattern, r.Action, r.Origin, r.Source.Line))
				}
				if want := []string{"fs__write_file=deny user:37", "github__*=ask user:36", "github__pull_request_read=allow user:35"}; !slices.Equal(rules, want) {
					t.Errorf("policy = %v; want %v", rules, want)
				}
			},
		},
		{
			name: "unknown key reported by full path with line",
			user: "user_unknown_keys.toml",
			diags: []string{
				"user_unknown_keys.toml:1 warning tui",
				"user_unknown_keys.toml:5 warning model.temperature",
				"user_unknown_keys.toml:9 error mcp.servers.github.tiemout",
			},
			check: func(t *testing.T, c *Config) {
				wantContains(t, "message", diagFor(t, c, "mcp.servers.github.tiemout").Message, "unknown key", "connect_timeout")
				wantContains(t, "github.Err", serverNamed(t, c, "github").Err, "user_unknown_keys.toml:9: mcp.servers.github.tiemout: unknown key")
				if c.Model.Name != "m" {
					t.Errorf("model.name = %q; an unknown sibling key must not drop the section", c.Model.Name)
				}
				if fs := serverNamed(t, c, "fs"); fs.Err != "" {
					t.Errorf("fs.Err = %q; the other server must load", fs.Err)
				}
			},
		},
		{
			name: "wrong type reported with line and the default kept",
			user: "user_wrong_types.toml",
			diags: []string{
				"user_wrong_types.toml:2 error model.max_tokens",
				"user_wrong_types.toml:5 error agent.max_iterations",
				"user_wrong_types.toml:6 error agent.autopilot",
				"user_wrong_types.toml:7 error agent.approval_timeout",
				"user_wrong_types.toml:10 error mcp.startup_wait",
				"user_wrong_types.toml:11 error mcp.result_max_bytes",
			},
			check: func(t *testing.T, c *Config) {
				if c.Model.MaxTokens != 8192 || c.Agent.MaxIterations != 25 || c.Agent.Autopilot || c.Agent.ApprovalTimeout != 5*time.Minute ||
					c.MCP.StartupWait != 5*time.Second || c.MCP.ResultMaxBytes != 65536 {
					t.Errorf("bad values must leave the defaults: %+v %+v %+v", c.Model, c.Agent, c.MCP)
				}
				wantContains(t, "message", diagFor(t, c, "agent.autopilot").Message, "expected a boolean", "got a string")
				wantContains(t, "message", diagFor(t, c, "agent.approval_timeout").Message, `like "30s"`, "got an integer")
				wantContains(t, "message", diagFor(t, c, "mcp.startup_wait").Message, `invalid duration "soon"`)
				wantContains(t, "message", diagFor(t, c, "agent.max_iterations").Message, "positive integer")
			},
		},
		{
			name:  "syntax error gives file:line:col and the file contributes nothing",
			user:  "user_syntax_error.toml",
			diags: []string{"user_syntax_error.toml:4 error "},
			check: func(t *testing.T, c *Config) {
				d := c.Diagnostics[0]
				if d.Source.Col == 0 {
					t.Errorf("syntax error has no column: %v", d)
				}
				wantContains(t, "diagnostic", d.String(), fmt.Sprintf("user_syntax_error.toml:4:%d: invalid TOML", d.Source.Col))
				if c.Model.Name != "" || len(c.MCP.Servers) != 0 {
					t.Errorf("a file with a syntax error must contribute nothing, got %+v", c)
				}
				if c.UserFile == "" {
					t.Errorf("UserFile is empty; the file was read")
				}
			},
		},
		{
			name: "broken server fails alone",
			user: "user_broken_servers.toml",
			diags: []string{
				"user_broken_servers.toml:4 error mcp.servers.nocommand",
				"user_broken_servers.toml:9 error mcp.servers.badtimeout.call_timeout",
				"user_broken_servers.toml:13 error mcp.servers.badargs.args",
				"user_broken_servers.toml:17 error mcp.servers.badenv.env.HOME_DIR",
				"user_broken_servers.toml:17 error mcp.servers.badenv.env.PORT",
				"user_broken_servers.toml:17 error mcp.servers.badenv.env.TOKEN",
				"user_broken_servers.toml:19 error mcp.servers.typo",
				"user_broken_servers.toml:20 error mcp.servers.typo.oops",
				"user_broken_servers.toml:23 error mcp.servers.emptycommand.command",
				"user_broken_servers.toml:26 error mcp.servers.scalar",
				"user_broken_servers.toml:29 error mcp.servers.cmdline.command",
			},
			check: func(t *testing.T, c *Config) {
				want := []string{"badargs", "badenv", "badtimeout", "cmdline", "emptycommand", "nocommand", "ok", "scalar", "typo"}
				if got := serverNames(c); !slices.Equal(got, want) {
					t.Fatalf("servers = %v; want every entry, broken ones included, sorted: %v", got, want)
				}
				for _, s := range c.MCP.Servers {
					if (s.Err == "") != (s.Name == "ok") {
						t.Errorf("%s.Err = %q; only the well-formed entry may have no error", s.Name, s.Err)
					}
				}
				wantContains(t, "nocommand.Err", serverNamed(t, c, "nocommand").Err, "missing command")
				wantContains(t, "badtimeout.Err", serverNamed(t, c, "badtimeout").Err, `invalid duration "30"`)
				wantContains(t, "badargs.Err", serverNamed(t, c, "badargs").Err, "element 2 is an integer")
				badenv := serverNamed(t, c, "badenv").Err
				wantContains(t, "badenv.Err", badenv, `quote it: "8080"`, `unterminated "${GH_TOKEN"`, "write ${HOME}")
				wantContains(t, "cmdline.Err", serverNamed(t, c, "cmdline").Err,
					`runs without a shell: write command = "npx" and args = ["-y", "@modelcontextprotocol/server-everything"]`)
				wantContains(t, "scalar.Err", serverNamed(t, c, "scalar").Err, "expected a table")
				if ok := serverNamed(t, c, "ok"); ok.Command != "mcp-server-everything" || ok.Cwd != td || ok.WorkspaceRoot != wd {
					t.Errorf("ok = %+v; want its command, cwd = the config file's folder, workspace = the process directory", ok)
				}
			},
		},
		{
			name: "invalid policy action is dropped with a diagnostic",
			user: "user_policy.toml",
			diags: []string{
				`user_policy.toml:5 error mcp.policy.everything__echo`,
				`user_policy.toml:6 error mcp.policy."bad["`,
				`user_policy.toml:7 error mcp.policy.number`,
			},
			check: func(t *testing.T, c *Config) {
				var rules []string
				for _, r := range c.MCP.Policy {
					rules = append(rules, r.Pattern+"="+r.Action)
				}
				if want := []string{"fs__read_file=allow", "fs__write_file=deny", "github__*=ask"}; !slices.Equal(rules, want) {
					t.Errorf("policy = %v; want %v", rules, want)
				}
				wantContains(t, "message", diagFor(t, c, "mcp.policy.everything__echo").Message, `invalid action "yes"`, `"allow", "ask" or "deny"`)
			},
		},
		{
			name: "stream_idle_timeout and max_tokens_field are read",
			user: "user_model_wire.toml",
			check: func(t *testing.T, c *Config) {
				if c.Model.Provider != "llamacpp" || c.Model.StreamIdleTimeout != 15*time.Minute || c.Model.MaxTokensField != "max_completion_tokens" {
					t.Errorf("Model = %+v", c.Model)
				}
			},
		},
		{
			name:  "a bad stream_idle_timeout or max_tokens_field keeps the default and says what is expected",
			user:  "user_model_wire_bad.toml",
			diags: []string{"user_model_wire_bad.toml:2 error model.stream_idle_timeout", "user_model_wire_bad.toml:3 error model.max_tokens_field"},
			check: func(t *testing.T, c *Config) {
				if c.Model.StreamIdleTimeout != DefaultStreamIdleTimeout || c.Model.MaxTokensField != "" {
					t.Errorf("Model = %+v; want the defaults", c.Model)
				}
				wantContains(t, "message", diagFor(t, c, "model.max_tokens_field").Message, `expected "max_tokens" or "max_completion_tokens"`)
			},
		},
		{
			name: "thinking is a budget of tokens",
			user: "user_model_thinking.toml",
			check: func(t *testing.T, c *Config) {
				if c.Model.Thinking != 16000 {
					t.Errorf("Model.Thinking = %d, want 16000", c.Model.Thinking)
				}
			},
		},
		{
			name: `thinking "off" is off`,
			user: "user_model_thinking_off.toml",
			check: func(t *testing.T, c *Config) {
				if c.Model.Thinking != 0 {
					t.Errorf("Model.Thinking = %d, want 0", c.Model.Thinking)
				}
			},
		},
		{
			name:  "a thinking budget under the API's 1024 keeps thinking off and says what is expected",
			user:  "user_model_thinking_small.toml",
			diags: []string{"user_model_thinking_small.toml:2 error model.thinking"},
			check: func(t *testing.T, c *Config) {
				wantContains(t, "message", diagFor(t, c, "model.thinking").Message, `expected "off" or a budget of at least 1024 tokens`)
			},
		},
		{
			name:  "a word other than off is refused",
			user:  "user_model_thinking_word.toml",
			diags: []string{"user_model_thinking_word.toml:2 error model.thinking"},
			check: func(t *testing.T, c *Config) {
				if c.Model.Thinking != 0 {
					t.Errorf("Model.Thinking = %d, want 0", c.Model.Thinking)
				}
			},
		},
		{
			name:  "a budget written in quotes is refused saying it is a string, not the number it looks like",
			user:  "user_model_thinking_quoted.toml",
			diags: []string{"user_model_thinking_quoted.toml:2 error model.thinking"},
			check: func(t *testing.T, c *Config) {
				wantContains(t, "message", diagFor(t, c, "model.thinking").Message, `thinking = "16000" is a string: write the budget as a number, without quotes (thinking = 16000)`)
			},
		},
		{
			name:  "thinking with a provider of another wire is refused at its line",
			user:  "user_model_thinking_other_wire.toml",
			diags: []string{"user_model_thinking_other_wire.toml:4 error model.thinking"},
			check: func(t *testing.T, c *Config) {
				if c.Model.Thinking != 0 {
					t.Errorf("Model.Thinking = %d, want 0 (off)", c.Model.Thinking)
				}
				wantContains(t, "message", diagFor(t, c, "model.thinking").Message, `provider "deepseek" (DeepSeek) speaks chat-completions: remove it`)
			},
		},
		{
			name: "model provider and base URL are validated and an API key is never echoed",
			user: "user_model.toml",
			diags: []string{
				"user_model.toml:2 error model.provider",
				"user_model.toml:3 error model.base_url",
				"user_model.toml:4 error model.api_key_env",
			},
			check: func(t *testing.T, c *Config) {
				if c.Model.Provider != "" || c.Model.BaseURL != "" || c.Model.APIKeyEnv != "" {
					t.Errorf("invalid model values must not be used: %+v", c.Model)
				}
				wantContains(t, "message", diagFor(t, c, "model.provider").Message, `"anthropic", "openai", `)
				for _, d := range c.Diagnostics {
					if strings.Contains(d.String(), "secretvalue") {
						t.Errorf("diagnostic echoes the key: %s", d)
					}
				}
			},
		},
		{
			name:  "workspace cannot set model, autopilot, limits or allow, and cannot shadow a user server",
			user:  "user_shadowed.toml",
			roots: []string{ws("forbidden"), ws("second")},
			diags: []string{
				wsFile("forbidden") + ":3 warning model.provider",
				wsFile("forbidden") + ":4 warning model.base_url",
				wsFile("forbidden") + ":5 warning model.api_key_env",
				wsFile("forbidden") + ":8 warning agent.autopilot",
				wsFile("forbidden") + ":9 warning agent.max_iterations",
				wsFile("forbidden") + ":12 warning mcp.result_max_bytes",
				wsFile("forbidden") + ":20 warning mcp.servers.github",
				wsFile("forbidden") + `:25 warning mcp.policy."*"`,
				wsFile("second") + ":1 warning mcp.servers.repo",
			},
			check: func(t *testing.T, c *Config) {
				if c.Model != Defaults().Model || c.Agent.Autopilot || c.Agent.MaxIterations != 25 || c.MCP.ResultMaxBytes != 65536 {
					t.Errorf("workspace values leaked: %+v %+v %d", c.Model, c.Agent, c.MCP.ResultMaxBytes)
				}
				wantContains(t, "autopilot warning", diagFor(t, c, "agent.autopilot").Message, "cannot loosen", "autopilot")
				wantContains(t, "base_url warning", diagFor(t, c, "model.base_url").Message, "only the user config")
				wantContains(t, "allow warning", diagFor(t, c, `mcp.policy."*"`).Message, "never allow")
				if got := serverNames(c); !slices.Equal(got, []string{"github", "other", "repo"}) {
					t.Fatalf("servers = %v", got)
				}
				gh := serverNamed(t, c, "github")
				if gh.Origin != User || gh.Command != "docker" || gh.WorkspaceRoot != ws("forbidden") {
					t.Errorf("github = %+v; want the user's entry, rooted at the first workspace", gh)
				}
				wantContains(t, "shadow warning", diagFor(t, c, "mcp.servers.github").Message, "must not shadow", "user_shadowed.toml:1")
				repo := serverNamed(t, c, "repo")
				if repo.Origin != Workspace || repo.Command != "node" || repo.WorkspaceRoot != ws("forbidden") ||
					repo.Cwd != filepath.Join(ws("forbidden"), "tools") || repo.Env["MODE"] != "${MODE:-dev}" || repo.Err != "" {
					t.Errorf("repo = %+v; want the first workspace's entry", repo)
				}
				wantContains(t, "duplicate warning", diagFor(t, c, "mcp.servers.repo").Message, "another workspace folder")
				if other := serverNamed(t, c, "other"); other.WorkspaceRoot != ws("second") || other.Cwd != ws("second") {
					t.Errorf("other = %+v; want rooted at its own workspace", other)
				}
				var rules []string
				for _, r := range c.MCP.Policy {
					rules = append(rules, fmt.Sprintf("%s=%s %s:%d", r.Pattern, r.Action, r.Origin, r.Source.Line))
				}
				if want := []string{"repo__*=ask workspace:27", "repo__deploy=deny workspace:26"}; !slices.Equal(rules, want) {
					t.Errorf("policy = %v; want only the tightening rules: %v", rules, want)
				}
				if want := []string{filepath.Join(ws("forbidden"), ".agentls", "config.toml"), filepath.Join(ws("second"), ".agentls", "config.toml")}; !slices.Equal(c.WorkspaceFiles, want) {
					t.Errorf("WorkspaceFiles = %v; want %v", c.WorkspaceFiles, want)
				}
			},
		},
		{
			name:  "workspace syntax error drops that file only",
			user:  "user_shadowed.toml",
			roots: []string{ws("syntax"), ws("second")},
			diags: []string{wsFile("syntax") + ":3 error "},
			check: func(t *testing.T, c *Config) {
				if got := serverNames(c); !slices.Equal(got, []string{"github", "other", "repo"}) {
					t.Errorf("servers = %v; want the user's and the second workspace's", got)
				}
			},
		},
		{
			name:  "same workspace root twice is read once",
			roots: []string{ws("second"), ws("second") + "/"},
			diags: []string{},
			check: func(t *testing.T, c *Config) {
				if len(c.WorkspaceFiles) != 1 || len(c.MCP.Servers) != 2 {
					t.Errorf("WorkspaceFiles = %v, servers = %v", c.WorkspaceFiles, serverNames(c))
				}
			},
		},
		{
			name: "inline tables, dotted keys and multi-line values are located",
			user: "user_inline.toml",
			diags: []string{
				"user_inline.toml:4 error mcp.servers.dotted.list_timeout",
				"user_inline.toml:15 error mcp.servers.multi.env.B",
			},
			check: func(t *testing.T, c *Config) {
				for name, line := range map[string]int{"inline": 2, "dotted": 3, "multi": 6} {
					if s := serverNamed(t, c, name); s.Source.Line != line {
						t.Errorf("%s.Source = %v; want line %d", name, s.Source, line)
					}
				}
				if in := serverNamed(t, c, "inline"); in.Err != "" || in.CallTimeout != time.Second {
					t.Errorf("inline = %+v", in)
				}
				if m := serverNamed(t, c, "multi"); !slices.Equal(m.Args, []string{"one", "two\nstill two", "three"}) {
					t.Errorf("multi.Args = %q", m.Args)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			user := ""
			if tc.user != "" {
				user = filepath.Join(td, tc.user)
			}
			c := Load(user, tc.roots)
			if got := renderDiags(td, c.Diagnostics); !slices.Equal(got, tc.diags) {
				t.Errorf("diagnostics:\n got %q\nwant %q\nfull: %v", got, tc.diags, c.Diagnostics)
			}
			for _, d := range c.Diagnostics {
				if d.Message == "" || d.Severity == "" {
					t.Errorf("diagnostic without message or severity: %+v", d)
				}
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func TestLoadIsDeterministic(t *testing.T) {
	td, _ := filepath.Abs("testdata")
	roots := []string{filepath.Join(td, "ws", "forbidden"), filepath.Join(td, "ws", "second")}
	first := fmt.Sprintf("%+v", Load(filepath.Join(td, "user_broken_servers.toml"), roots))
	for i := 0; i < 20; i++ {
		if again := fmt.Sprintf("%+v", Load(filepath.Join(td, "user_broken_servers.toml"), roots)); again != first {
			t.Fatalf("Load is not deterministic:\n%s\n%s", first, again)
		}
	}
}

func TestPaths(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	tests := []struct {
		name                string
		agentls, xdgC, xdgS string
		wantUser, wantState string
	}{
		{"AGENTLS_CONFIG wins", "/etc/a.toml", "/x", "/s", "/etc/a.toml", "/s/agentls"},
		{"XDG dirs are used", "", "/x", "/s", "/x/agentls/config.toml", "/s/agentls"},
		{"home defaults", "", "", "", filepath.Join(home, ".config/agentls/config.toml"), filepath.Join(home, ".local/state/agentls")},
		{"relative XDG dirs are ignored", "", "rel", "rel", filepath.Join(home, ".config/agentls/config.toml"), filepath.Join(home, ".local/state/agentls")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AGENTLS_CONFIG", tc.agentls)
			t.Setenv("XDG_CONFIG_HOME", tc.xdgC)
			t.Setenv("XDG_STATE_HOME", tc.xdgS)
			if got := UserPath(); got != tc.wantUser {
				t.Errorf("UserPath() = %q; want %q", got, tc.wantUser)
			}
			if got := StateDir(); got != tc.wantState {
				t.Errorf("StateDir() = %q; want %q", got, tc.wantState)
			}
		})
	}
}
