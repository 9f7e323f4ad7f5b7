package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// TestSessionsListsAndShowsWhatRunStored: two `agentls run` tasks are two
// sessions; `agentls sessions` lists them newest first (also as JSON),
// `sessions show ID` prints one's transcript, an unknown id is a usage
// error that says where to look.
func TestSessionsListsAndShowsWhatRunStored(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	e.model.Script(modeltest.Turn{Text: "first answer"}, modeltest.Turn{Text: "second answer"})
	for _, p := range []string{"the first question", "the second question"} {
		if code, _, stderr := e.run(t, p); code != 0 {
			t.Fatalf("run %q: exit %d\n%s", p, code, stderr)
		}
	}
	sessions := func(args ...string) (int, string, string) {
		cmd := e.command()
		cmd.Args = append([]string{e.bin, "sessions"}, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errb.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	}
	code, out, stderr := sessions("--json")
	var res wire.SessionsResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Sessions) != 2 {
		t.Fatalf("sessions --json: exit %d, %q, %s", code, out, stderr)
	}
	if res.Sessions[0].Title != "the second question" || res.Sessions[1].Title != "the first question" {
		t.Errorf("sessions, newest first: %+v", res.Sessions)
	}
	code, out, _ = sessions()
	if code != 0 || !strings.Contains(out, res.Sessions[0].SessionID) || !strings.Contains(out, "the first question") || strings.Index(out, "second") > strings.Index(out, "first question") {
		t.Errorf("sessions: exit %d\n%s", code, out)
	}
	code, out, stderr = sessions("show", res.Sessions[1].SessionID)
	if code != 0 || !strings.Contains(out, "the first question") || !strings.Contains(out, "first answer") || strings.Contains(out, "second answer") {
		t.Errorf("sessions show: exit %d\n%s\n%s", code, out, stderr)
	}
	code, _, stderr = sessions("show", "no-such-session")
	if code != 2 || !strings.Contains(stderr, `no session "no-such-session" in this workspace`) {
		t.Errorf("sessions show of an unknown id: exit %d, %q", code, stderr)
	}
}
