package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// An answer streamed before agentls is killed (kill -9: nothing of agentls
// runs after it) is kept: the next run of the session says the last turn
// did not finish, keeps what streamed, marked interrupted, and the model is
// told the answer was cut off.
func TestRunKilledMidStreamKeepsThePartialAnswer(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			e := newRunEnv(t, format, "")
			first := "The first line of the answer, streamed slowly.\n"
			e.model.Script(modeltest.Turn{Deltas: []string{first, "a second line that never comes"}, Hang: true},
				modeltest.Turn{Text: "Picking up where I stopped."})
			cmd := e.command("explain the code slowly")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The first line is on stdout once it was streamed; then the
			// model hangs, and agentls is killed mid-answer.
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || line != first {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("stdout = %q, %v; want the first streamed line", line, err)
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			cmd.Wait()

			code, out, errOut := e.run(t, "--continue", "go on")
			if code != 0 {
				t.Fatalf("--continue exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if !strings.Contains(errOut, "the last turn did not finish") || !strings.Contains(errOut, "The first line of the answer") {
				t.Errorf("--continue does not say the last turn was cut off and what it had said:\n%s", errOut)
			}
			reqs := e.model.ModelRequests(format)
			body := string(reqs[len(reqs)-1].Body)
			if !strings.Contains(body, "The first line of the answer, streamed slowly.") || !strings.Contains(body, "this answer was cut off here: agentls stopped") {
				t.Errorf("the next request does not carry the partial answer, marked cut off:\n%s", body)
			}
			if strings.Count(body, "explain the code slowly") != 1 {
				t.Errorf("the killed turn's prompt is sent %d times, want once:\n%s", strings.Count(body, "explain the code slowly"), body)
			}
			sessions, _ := filepath.Glob(filepath.Join(e.state, "agentls", "sessions", "*", "*.jsonl"))
			if len(sessions) != 1 {
				t.Fatalf("sessions = %v, want the one continued", sessions)
			}
			raw, _ := os.ReadFile(sessions[0])
			if !strings.Contains(string(raw), `"interrupted":"stopped"`) {
				t.Errorf("the session does not keep the partial answer as interrupted:\n%s", raw)
			}
			if left, _ := filepath.Glob(sessions[0] + ".turn"); len(left) != 0 {
				t.Errorf("the killed turn's journal is still there after it was recovered: %v", left)
			}
		})
	}
}
