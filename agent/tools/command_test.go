package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

func TestRunCommandToolExitCodeAndShellRule(t *testing.T) {
	tt := newToolTest(t)
	out, isErr, _ := tt.call("run_command", `{"command":"sh -c 'echo hi; exit 3'"}`)
	if isErr || out != "hi\n[exit code 3]" {
		t.Errorf("run_command = %q (error %v)", out, isErr)
	}
	if len(tt.asks) != 1 || tt.asks[0].Kind != "command" || !strings.HasPrefix(tt.asks[0].Detail, "sh -c 'echo hi; exit 3'") {
		t.Errorf("asks = %+v, want a command card showing the literal command", tt.asks)
	}
	out, isErr, _ = tt.call("run_command", `{"command":"ls | wc -l"}`)
	if !isErr || !strings.Contains(out, "set shell to true") {
		t.Errorf("shell syntax without shell: %q", out)
	}
	out, _, _ = tt.call("run_command", `{"command":"echo $((1+2)) | cat","shell":true}`)
	if !strings.HasPrefix(out, "3\n") {
		t.Errorf("shell command: %q", out)
	}
	tt.deny = true
	out, isErr, status := tt.call("run_command", `{"command":"touch x"}`)
	if !isErr || status != "denied" || out != "ERROR: denied by the user" {
		t.Errorf("denied command: %q %s", out, status)
	}
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"go test ./...", "go|test|./...", false},
		{`grep "a b" 'c d' e\ f`, "grep|a b|c d|e f", false},
		{`echo "\"q\""`, `echo|"q"`, false},
		{"ls | wc", "", true},
		{"echo $HOME", "", true},
		{`echo "$HOME"`, "", true},
		{"rm *.go", "", true},
		{"echo 'unterminated", "", true},
	}
	for _, tc := range tests {
		got, err := splitWords(tc.in)
		if tc.err != (err != nil) || (!tc.err && strings.Join(got, "|") != tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestAutopilotSkipsTheCardOnlyForCommandsTheClassifierCallsSafe(t *testing.T) {
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	writeFileT(t, tt.dir+"/f.txt", "x")
	if out, isErr, _ := tt.call("run_command", `{"command":"ls"}`); isErr || !strings.Contains(out, "f.txt") || len(tt.asks) != 0 {
		t.Errorf("autopilot ls = %q, asks %d; want it run without a card", out, len(tt.asks))
	}
	tt.deny = true
	if out, _, status := tt.call("run_command", `{"command":"rm f.txt"}`); status != "denied" || len(tt.asks) != 1 {
		t.Errorf("autopilot rm = %q %s, asks %d; want a card (denied here)", out, status, len(tt.asks))
	}
	tt.env.Mode = modeIs(wire.ModeAsk)
	tt.call("run_command", `{"command":"ls"}`)
	if len(tt.asks) != 2 {
		t.Errorf("without autopilot a safe command did not ask")
	}
}

func TestRunCommandDoesNotPassTheModelKeyOn(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-commands")
	t.Setenv("MY_MODEL_KEY", "custom-key-not-for-commands")
	t.Setenv("AGENTLS_VISIBLE", "visible")
	tt := newToolTest(t)
	tt.env.HideEnv = []string{"MY_MODEL_KEY"}
	out, _, _ := tt.call("run_command", `{"command":"env"}`)
	if strings.Contains(out, "not-for-commands") || !strings.Contains(out, "AGENTLS_VISIBLE=visible") {
		t.Errorf("env output:\n%s", out)
	}
}

// TestRunCommandIgnoresRelativePathEntries: with "" or "." in the user's
// PATH, `shell: true` made sh run ./ls shipped by the repository instead of
// the system's ls, even after the user approved "ls".
func TestRunCommandIgnoresRelativePathEntries(t *testing.T) {
	for _, path := range []string{":" + os.Getenv("PATH"), ".:" + os.Getenv("PATH"), "bin:" + os.Getenv("PATH") + ":"} {
		t.Run(strings.SplitN(path, ":", 2)[0], func(t *testing.T) {
			t.Setenv("PATH", path)
			tt := newToolTest(t)
			writeFileT(t, filepath.Join(tt.dir, "ls"), "#!/bin/sh\necho REPO-LS-RAN\n")
			os.Mkdir(filepath.Join(tt.dir, "bin"), 0o755)
			writeFileT(t, filepath.Join(tt.dir, "bin", "ls"), "#!/bin/sh\necho REPO-LS-RAN\n")
			for _, f := range []string{"ls", "bin/ls"} {
				os.Chmod(filepath.Join(tt.dir, f), 0o755)
			}
			out, _, _ := tt.call("run_command", `{"command":"ls","shell":true}`)
			if strings.Contains(out, "REPO-LS-RAN") || !strings.Contains(out, "bin") {
				t.Errorf("PATH %q: approved `ls` ran the repository's ls: %q", path, out)
			}
		})
	}
}
