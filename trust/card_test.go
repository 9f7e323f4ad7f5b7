package trust

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

func TestShellQuote(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"plain words stay plain", []string{"npx", "-y", "@modelcontextprotocol/server-filesystem"}, "npx -y @modelcontextprotocol/server-filesystem"},
		{"a space keeps one word one word", []string{"ls", "/home/me/My Documents"}, "ls '/home/me/My Documents'"},
		{"empty arg is shown", []string{"x", ""}, "x ''"},
		{"single quote inside", []string{"echo", "it's"}, `echo 'it'\''s'`},
		{"shell syntax is quoted", []string{"sh", "-c", "curl x | sh"}, "sh -c 'curl x | sh'"},
		{"dollar is literal", []string{"echo", "${HOME}"}, "echo '${HOME}'"},
		{"a first word with = is not an assignment", []string{"A=b", "x"}, "'A=b' x"},
		{"newline cannot fake a line", []string{"x", "a\ncwd: /safe"}, `x $'a\ncwd: /safe'`},
		{"terminal escapes are shown", []string{"x", "\x1b[2Kok"}, `x $'\x1b[2Kok'`},
		{"bidi override is shown", []string{"x", "a\u202eb"}, `x $'a\u202eb'`},
		{"invalid utf-8 is shown", []string{"x", "\xff"}, `x $'\xff'`},
		{"unicode letters are fine", []string{"cat", "café"}, "cat 'café'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShellQuote(tt.argv); got != tt.want {
				t.Fatalf("ShellQuote(%q) = %s, want %s", tt.argv, got, tt.want)
			}
		})
	}
}

// TestShellQuoteRoundTripsThroughBash pastes the quoted text into a real
// shell and checks the argv that comes out.
func TestShellQuoteRoundTripsThroughBash(t *testing.T) {
	bash := testenv.Tool(t, "bash")
	argv := []string{"printf", "%s\\0", "a b", "", "it's", "$(id)", "`id`", "a\nb", "\x1b[31m", "x\u202ey", "\xff\xfe", "tab\there", "back\\slash", "~", "*", "A=b"}
	out, err := exec.Command(bash, "-c", ShellQuote(argv)).Output()
	if err != nil {
		t.Fatalf("bash -c %s: %v", ShellQuote(argv), err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	want := argv[2:]
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
		t.Fatalf("round trip:\n got %q\nwant %q", got, want)
	}
}

func TestLaunchCard(t *testing.T) {
	s := config.Server{
		Name: "fs", Origin: config.Workspace, WorkspaceRoot: "/repo",
		Source:  config.Source{File: "/repo/.agentls/config.toml", Line: 7},
		Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/My Documents"},
		Env: map[string]string{"NODE_OPTIONS": "--require /tmp/x.js", "TOKEN": "${GITHUB_TOKEN}", "EVIL": "1\ncwd:     /safe"},
		Cwd: "/repo",
	}
	title, detail := LaunchCard(s)
	if title != "Start MCP server 'fs' from .agentls/config.toml?" {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{
		"command: npx -y @modelcontextprotocol/server-filesystem '/home/me/My Documents'\n",
		"  NODE_OPTIONS='--require /tmp/x.js'\n",
		"  TOKEN='${GITHUB_TOKEN}'\n",
		`  EVIL=$'1\ncwd:     /safe'` + "\n",
		"cwd:     /repo\n",
		"from:    /repo/.agentls/config.toml:7\n",
		ServerFingerprint(s),
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("card lacks %q:\n%s", want, detail)
		}
	}
	if n := strings.Count(detail, "\ncwd:"); n != 1 {
		t.Errorf("an env value faked a cwd line (%d cwd lines):\n%s", n, detail)
	}
	_, noEnv := LaunchCard(config.Server{Name: "x", Command: "x", Cwd: "/r"})
	if !strings.Contains(noEnv, "env:     (none") {
		t.Errorf("card without env does not say so:\n%s", noEnv)
	}
}

// TestLaunchCardSaysWhatTheServerMayTouch: the card of a repository's
// server has a sandbox line: confined by default (reads the workspace,
// writes only its own state folder, no network), what a loosening entry
// asks for, or that it would run unconfined where the kernel cannot
// confine. The fingerprint line says sandbox and network ask again.
func TestLaunchCardSaysWhatTheServerMayTouch(t *testing.T) {
	base := config.Server{Name: "fs", Origin: config.Workspace, WorkspaceRoot: "/repo", Command: "npx", Cwd: "/repo",
		Source: config.Source{File: "/repo/.agentls/config.toml", Line: 1}}
	line := func(s config.Server) string {
		_, detail := LaunchCard(s)
		for _, l := range strings.Split(detail, "\n") {
			if strings.HasPrefix(l, "sandbox: ") {
				return l
			}
		}
		t.Fatalf("card has no sandbox line:\n%s", detail)
		return ""
	}
	loose := base
	loose.Sandbox = config.SandboxNone
	if got := line(loose); !strings.Contains(got, `not confined (sandbox = "none")`) {
		t.Errorf("sandbox = none: %q", got)
	}
	_, detail := LaunchCard(base)
	if !strings.Contains(detail, "any change to command, args, env, cwd, sandbox or network asks again") {
		t.Errorf("the fingerprint line does not say sandbox and network ask again:\n%s", detail)
	}
	if s := sandbox.Supported(); !s.Filesystem {
		if got := line(base); !strings.Contains(got, "NOT confined on this system") || !strings.Contains(got, s.Reason) {
			t.Errorf("without Landlock: %q, want it to say the server would run unconfined and why", got)
		}
		return
	}
	got := line(base)
	for _, want := range []string{`confined by the kernel (sandbox = "workspace-read")`, "reads /repo", "writes " + ServerStateDir(base) + " (its own folder", "network: none"} {
		if !strings.Contains(got, want) {
			t.Errorf("default: %q lacks %q", got, want)
		}
	}
	open := base
	open.Sandbox, open.Network = config.SandboxWorkspaceWrite, true
	got = line(open)
	for _, want := range []string{`(sandbox = "workspace-write")`, "writes " + ServerStateDir(base) + " (its own folder: HOME, TMPDIR, may run what it puts there), /repo;", "network: any"} {
		if !strings.Contains(got, want) {
			t.Errorf("workspace-write with network: %q lacks %q", got, want)
		}
	}
}
