package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// agent/compact shrinks what is sent next: a task that read a file 6 times
// is compacted on request (the model writes the summary), the next request
// carries the summary instead of the old results, and the transcript says so.
func TestAgentCompactShrinksWhatIsSentNext(t *testing.T) {
	e := newEnv(t, "")
	var big strings.Builder
	for i := 0; big.Len() < 6000; i++ {
		fmt.Fprintf(&big, "row %d of the data file\n", i)
	}
	writeFile(t, filepath.Join(e.root, "data.txt"), big.String())
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	for i := 0; i < 6; i++ {
		e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"data.txt"}`}}})
	}
	e.model.Script(modeltest.Turn{Text: "read it"})
	var r runResult
	c.mustCall("agent/run", map[string]string{"prompt": "read data.txt six times"}, &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("run: %+v", r)
	}
	e.model.Answer(func(req modeltest.Request) (modeltest.Turn, bool) {
		if strings.Contains(req.System(), "You compact a coding agent's conversation") {
			return modeltest.Turn{Text: "SUMMARY: data.txt was read six times; it lists rows."}, true
		}
		return modeltest.Turn{}, false
	})
	var res struct {
		SessionID                 string
		TokensBefore, TokensAfter int
	}
	c.mustCall("agent/compact", map[string]string{"sessionId": r.SessionID}, &res)
	if res.SessionID != r.SessionID || res.TokensAfter <= 0 || res.TokensAfter*3 > res.TokensBefore {
		t.Errorf("compact = %+v, want a view under a third of what it was", res)
	}
	e.model.Script(modeltest.Turn{Text: "rows"})
	c.mustCall("agent/run", map[string]string{"prompt": "what is in it?", "sessionId": r.SessionID}, &r)
	reqs := e.model.ModelRequests("")
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "SUMMARY: data.txt was read six times") || strings.Count(body, "row 100 of the data file") > 1 {
		t.Errorf("the request after compaction does not carry the summary instead of the results:\n%.600s", body)
	}
	if err := c.call("agent/compact", map[string]string{"sessionId": "nope"}, nil); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("compact of an unknown session: %v", err)
	}
}
