package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// An edit the user approved that never landed because agentls was killed
// (kill -9 while the editor held the workspace/applyEdit) is said when the
// session is continued: to the user, in a status event, and to the model,
// in the call's result; the file is as it was.
func TestAnApprovedEditKilledBeforeItLandedIsSaidOnResume(t *testing.T) {
	e := newEnv(t, "")
	path := filepath.Join(e.root, "b.txt")
	writeFile(t, path, "alpha\nbeta\n")
	c, cmd := startServe(t, e)
	applying := make(chan struct{})
	var once sync.Once
	c.setAnswer(func(method string, params json.RawMessage) (any, error) {
		switch method {
		case "agent/requestApproval":
			return map[string]any{"outcome": "selected", "optionId": "allow_once"}, nil
		case "workspace/applyEdit":
			once.Do(func() { close(applying) })
			<-c.stop // the editor is slow to apply; agentls dies meanwhile
			return map[string]any{"applied": false}, nil
		}
		return defaultAnswer(method, params)
	})
	c.initialize(e.root, caps(true, true, false))
	// Open in the editor: an edit of a file the editor has not opened goes
	// to the disk, not through workspace/applyEdit.
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": pathToURI(path), "languageId": "plaintext", "version": 1, "text": "alpha\nbeta\n"}})
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file",
		Input: `{"path":"b.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}})
	const session = "crash-after-approval"
	c.runAsync(map[string]any{"prompt": "shout beta", "sessionId": session})
	<-applying
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	// SIGKILL is delivered, and the process reaped, after Kill returns:
	// until then its pid is alive and its journal that of a running
	// agentls, which the next one rightly leaves alone. The resume this
	// test is about comes after the crash, so it waits for the exit.
	code := <-c.code
	c.code <- code // for the cleanup

	e.model.Script(modeltest.Turn{Text: "I will read it again."})
	c2, _ := startServe(t, e)
	c2.initialize(e.root, caps(true, true, false))
	res := c2.await(c2.runAsync(map[string]any{"prompt": "did it work?", "sessionId": session}))
	if res.StopReason != "end_turn" {
		t.Fatalf("resumed turn = %+v", res)
	}
	said := false
	for _, m := range c2.messages("agent/event") {
		var ev struct{ Type, Message string }
		json.Unmarshal(m.Params, &ev)
		if ev.Type == "status" && strings.Contains(ev.Message, "edit_file") && strings.Contains(ev.Message, "was approved but never applied") {
			said = true
		}
	}
	if !said {
		t.Errorf("the resumed session does not say the approved edit never landed; events:\n%s", c2.dump())
	}
	reqs := e.model.ModelRequests("openai")
	var results []modeltest.ToolResult
	if len(reqs) > 0 {
		results = reqs[len(reqs)-1].ToolResults()
	}
	if len(results) != 1 || results[0].ToolUseID != "e1" || !strings.Contains(results[0].Content, "never applied") {
		t.Errorf("the model is not told the approved edit never landed: %+v", results)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "alpha\nbeta\n" {
		t.Errorf("b.txt = %q, want it unchanged", disk)
	}
}
