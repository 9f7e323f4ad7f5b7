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
	tmux := testenv.Tool(t, "tmux")
	for _, tc := range []struct{ answer, want string }{
		{"y", "hello through a terminal"},
		{"n", "ERROR: denied by the user"},
	} {
		t.Run("answer "+tc.answer, func(t *testing.T) {
			e := newRunEnv(t, "anthropic", "")
			os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello through a terminal\n"), 0o644)
			e.model.Script(e.readTurn(), modeltest.Turn{Text: "Answered."})
			exitFile := filepath.Join(e.state, "exit-code")
			script := filepath.Join(e.state, "run.sh")
			os.MkdirAll(e.state, 0o700)
			body := fmt.Sprintf("#!/bin/sh\ncd %q\nexport AGENTLS_CONFIG=%q XDG_STATE_HOME=%q AGENTLS_TEST_KEY=test\n%q run 'read hello.txt'\necho $? > %q\n",
				e.ws, e.config, e.state, e.bin, exitFile)
			if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
				t.Fatal(err)
			}
			var rnd [6]byte
			rand.Read(rnd[:])
			socket := "agentls-run-" + hex.EncodeToString(rnd[:])
			tm := func(args ...string) string {
				out, err := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("tmux %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			tm("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "run", script)
			t.Cleanup(func() {
				exec.Command(tmux, "-L", socket, "kill-server").Run()
				testenv.WaitNoProcesses(t, socket, 5*time.Second)
			})
			screen := ""
			for deadline := time.Now().Add(60 * time.Second); !strings.Contains(screen, "deny:"); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no approval card on the terminal:\n%s", screen)
				}
				screen = tm("capture-pane", "-p", "-t", "run")
			}
			for _, want := range []string{"Call fs · read_text_file?", "fs · read_text_file", filepath.Join(e.ws, "hello.txt"), "[a] Always allow fs__read_text_file"} {
				if !strings.Contains(screen, want) {
					t.Errorf("the card lacks %q:\n%s", want, screen)
				}
			}
			tm("send-keys", "-t", "run", tc.answer, "Enter")
			var code []byte
			for deadline := time.Now().Add(60 * time.Second); len(code) == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("agentls run did not finish:\n%s", tm("capture-pane", "-p", "-t", "run"))
				}
				code, _ = os.ReadFile(exitFile)
			}
			if strings.TrimSpace(string(code)) != "0" {
				t.Fatalf("exit code %s:\n%s", code, tm("capture-pane", "-p", "-t", "run"))
			}
			trs := e.model.Requests()[1].ToolResults()
			if len(trs) != 1 || !strings.Contains(trs[0].Content, tc.want) {
				t.Errorf("tool results = %+v, want %q", trs, tc.want)
			}
		})
	}
}
