package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunAsksOnARealTerminal runs `agentls run` in a tmux pane (a real
// terminal), waits for the approval card of an MCP call that policy says
// ask, answers "y", and checks that the model then got the server's real
// result. The card must show `server · tool` and the arguments literally.
func TestRunAsksOnARealTerminal(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{"y", "hello through a terminal"},
		{"n", "ERROR: denied by the user"},
	} {
		t.Run("answer "+tc.answer, func(t *testing.T) {
			e := newRunEnv(t, "anthropic", "")
			os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello through a terminal\n"), 0o644)
			e.model.Script(e.readTurn(), modeltest.Turn{Text: "Answered."})
			term := runOnTerminal(t, e, "read hello.txt", 200, 50)
			screen := term.wait("deny:", false)
			for _, want := range []string{"Call fs · read_text_file?", "fs · read_text_file", filepath.Join(e.ws, "hello.txt"), "[a] Always allow fs__read_text_file"} {
				if !strings.Contains(screen, want) {
					t.Errorf("the card lacks %q:\n%s", want, screen)
				}
			}
			term.keys(tc.answer, "Enter")
			term.exitsWith0()
			trs := e.model.Requests()[1].ToolResults()
			if len(trs) != 1 || !strings.Contains(trs[0].Content, tc.want) {
				t.Errorf("tool results = %+v, want %q", trs, tc.want)
			}
		})
	}
}

// terminalRun is `agentls run` in a tmux pane: a real terminal.
type terminalRun struct {
	t        *testing.T
	tm       func(args ...string) string
	exitFile string
}

// runOnTerminal starts `agentls run PROMPT` in a new tmux pane of w x h
// cells, with e's config, state folder and model. The pane stays open 30 s
// after agentls exits, so its last screen can still be read.
func runOnTerminal(t *testing.T, e *runEnv, prompt string, w, h int) *terminalRun {
	t.Helper()
	return onTerminal(t, e, "run "+shellQuote(prompt), w, h)
}

// onTerminal starts `agentls ARGS` (ARGS quoted for sh) in a new tmux pane
// of w x h cells, as runOnTerminal does.
func onTerminal(t *testing.T, e *runEnv, args string, w, h int) *terminalRun {
	t.Helper()
	tmux := testenv.Tool(t, "tmux")
	r := &terminalRun{t: t, exitFile: filepath.Join(e.state, "exit-code")}
	script := filepath.Join(e.state, "run.sh")
	os.MkdirAll(e.state, 0o700)
	os.Remove(r.exitFile)
	// The shell traps SIGINT (a handler, not ignored, so agentls gets the
	// default): a Ctrl-C that cancels a chat's turn reaches the whole
	// foreground group, and must not end the script before it records
	// the exit code.
	body := fmt.Sprintf("#!/bin/sh\ntrap : INT\ncd %q\nexport AGENTLS_CONFIG=%q XDG_STATE_HOME=%q AGENTLS_TEST_KEY=test\n%q %s\necho $? > %q\nsleep 30\n",
		e.ws, e.config, e.state, e.bin, args, r.exitFile)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	socket := "agentls-run-" + hex.EncodeToString(rnd[:])
	r.tm = func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	r.tm("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", "run", script)
	t.Cleanup(func() {
		exec.Command(tmux, "-L", socket, "kill-server").Run()
		testenv.WaitNoProcesses(t, socket, 5*time.Second)
	})
	return r
}

// wait returns the screen once it shows want (with the scrollback, when
// history), failing the test after 60 s.
func (r *terminalRun) wait(want string, history bool) string {
	r.t.Helper()
	capture := []string{"capture-pane", "-p", "-t", "run"}
	if history {
		capture = []string{"capture-pane", "-p", "-S", "-200", "-t", "run"}
	}
	screen := ""
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(screen, want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("no %q on the terminal:\n%s", want, screen)
		}
		screen = r.tm(capture...)
	}
	return screen
}

// keys types into the pane (tmux send-keys).
func (r *terminalRun) keys(keys ...string) {
	r.tm(append([]string{"send-keys", "-t", "run"}, keys...)...)
}

// exitsWith0 waits for agentls run to exit and fails unless its code is 0.
func (r *terminalRun) exitsWith0() {
	r.t.Helper()
	var code []byte
	for deadline := time.Now().Add(60 * time.Second); len(code) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("agentls run did not finish:\n%s", r.tm("capture-pane", "-p", "-t", "run"))
		}
		code, _ = os.ReadFile(r.exitFile)
	}
	if strings.TrimSpace(string(code)) != "0" {
		r.t.Fatalf("exit code %s:\n%s", code, r.tm("capture-pane", "-p", "-t", "run"))
	}
}

// `agentls run` writes the disk: a line the user appends to the file while
// the edit's card is on the terminal stays, and the replacement is made in
// the text they left (the b.txt: before, the result was
// "alpha\nBETA-BY-AGENT\n" and the tool said it replaced one occurrence).
func TestRunKeepsAChangeMadeWhileTheCardIsOnTheTerminal(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	b := filepath.Join(e.ws, "b.txt")
	os.WriteFile(b, []byte("alpha\nbeta\n"), 0o644)
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{Text: "Edited."},
	)
	term := runOnTerminal(t, e, "edit b.txt", 200, 50)
	term.wait("deny:", false)
	if err := os.WriteFile(b, []byte("alpha\nbeta\nappended while the card was open\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	term.keys("y", "Enter")
	term.exitsWith0()
	if disk, _ := os.ReadFile(b); string(disk) != "alpha\nBETA-BY-AGENT\nappended while the card was open\n" {
		t.Errorf("b.txt = %q, want the replacement made in the user's text", disk)
	}
	trs := e.model.Requests()[1].ToolResults()
	if len(trs) != 1 || trs[0].IsError || !strings.Contains(trs[0].Content, "the other changes were kept") {
		t.Errorf("tool results = %+v, want the edit made in the current text, saying so", trs)
	}
}

// The folder of the file being edited is swapped for a link out of the
// workspace while the card is on the terminal (mv sub away, ln -s it
// back): the real binary writes nothing through the link and says so.
// Before, the edit landed in the folder outside the workspace.
func TestRunWritesNothingThroughALinkMadeWhileTheCardIsOnTheTerminal(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	sub := filepath.Join(e.ws, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "b.txt"), []byte("alpha\nbeta\n"), 0o644)
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"sub/b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{Text: "Edited."},
	)
	term := runOnTerminal(t, e, "edit sub/b.txt", 200, 50)
	term.wait("deny:", false)
	if err := os.Rename(sub, filepath.Join(outside, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "sub"), sub); err != nil {
		t.Fatal(err)
	}
	term.keys("y", "Enter")
	term.exitsWith0()
	if b, _ := os.ReadFile(filepath.Join(outside, "sub", "b.txt")); string(b) != "alpha\nbeta\n" {
		t.Errorf("the file outside the workspace = %q: the edit went through the link", b)
	}
	trs := e.model.Requests()[1].ToolResults()
	if len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].Content, "leads through a link") || !strings.Contains(trs[0].Content, "nothing was written") {
		t.Errorf("tool results = %+v, want a refusal saying the path now leads through a link", trs)
	}
}

// shellQuote is s quoted for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
