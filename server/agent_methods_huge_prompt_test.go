package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// initializeWithProgress is initialize for a client that shows $/progress.
func (c *rawClient) initializeWithProgress(root string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":%q,"capabilities":{"window":{"workDoneProgress":true},"experimental":{"agentls":{"approvals":true}}}}}`, pathToURI(root)))
	if r := c.reply("1"); r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

func progressKind(kind string) func(rawFrame) bool {
	return func(f rawFrame) bool {
		return f.Method == "$/progress" && strings.Contains(string(f.Params), `"kind":"`+kind+`"`)
	}
}

func progressMessage(t *testing.T, f rawFrame) string {
	t.Helper()
	var p struct {
		Value struct {
			Message string `json:"message"`
		} `json:"value"`
	}
	if err := json.Unmarshal(f.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.Value.Message
}

// A 50 MB prompt through agent/run (a real agentls serve, the fake model's
// window 200k tokens): it is refused at once with an error saying why and
// what to do, nothing is sent to the model or saved, and nothing echoes it
// whole: the $/progress begin and end carry one capped line, the reply no
// more than the error.
func TestA50MBPromptIsRefusedAndNeverEchoed(t *testing.T) {
	e := newEnv(t, "")
	c := startRaw(t, e)
	c.initializeWithProgress(e.root)
	prompt := "Summarize this log " + strings.Repeat("0123456789abcdef", 1<<16) + "\n" + strings.Repeat("log line\n", 50<<20/9)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "agent/run", "params": map[string]string{"prompt": prompt}})
	c.send(string(body))
	begin := c.next("the progress begin", progressKind("begin"))
	if msg := progressMessage(t, begin); utf8.RuneCountInString(msg) > 200 || !strings.HasPrefix(msg, "Summarize this log 0123") {
		t.Errorf("progress begin message is %d bytes (%.40q...), want the prompt's first line cut to 200 characters", len(msg), msg)
	}
	var r, end rawFrame
	for r.Result == nil || end.Params == nil {
		f := c.next("the reply and the progress end", func(f rawFrame) bool {
			return progressKind("end")(f) || f.Method == "" && string(f.ID) == "2"
		})
		if f.Method == "" {
			r = f
		} else {
			end = f
		}
	}
	if r.Error != nil {
		t.Fatalf("agent/run: %s", r.Error.Message)
	}
	var res runResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "error" || !strings.Contains(res.Error, "more than fake-model's whole context window (200000 tokens)") ||
		!strings.Contains(res.Error, "could never accept it") || !strings.Contains(res.Error, " MB)") {
		t.Errorf("agent/run = %+v, want an error saying the prompt is larger than the window", res)
	}
	if len(r.Result) > 2000 {
		t.Errorf("the agent/run reply is %d bytes: it echoes the prompt", len(r.Result))
	}
	if len(end.Params) > 1000 {
		t.Errorf("the progress end is %d bytes", len(end.Params))
	}
	if n := len(e.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"agent/sessions","params":{}}`)
	if s := c.reply("3"); !strings.Contains(string(s.Result), `"sessions":[]`) {
		t.Errorf("agent/sessions = %s, want no session saved", s.Result)
	}
}

// A prompt the model can take but whose first line is long: agent/tasks and
// the $/progress begin show that line cut to 200 characters, and
// agent/cancel ends the task.
func TestALongPromptIsEchoedAsOneCappedLine(t *testing.T) {
	e := newEnv(t, "")
	e.model.Script(modeltest.Turn{Text: "thinking", Hang: true})
	c := startRaw(t, e)
	c.initializeWithProgress(e.root)
	prompt := "Explain " + strings.Repeat("é", 5000) + "\n" + strings.Repeat("more text\n", 10000)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "agent/run", "params": map[string]string{"prompt": prompt}})
	c.send(string(body))
	begin := c.next("the progress begin", progressKind("begin"))
	want := "Explain " + strings.Repeat("é", 191) + "…"
	if msg := progressMessage(t, begin); msg != want {
		t.Errorf("progress begin message = %q, want %q", msg, want)
	}
	for len(e.model.Requests()) == 0 {
		c.send(`{"jsonrpc":"2.0","id":9,"method":"agent/tasks","params":{}}`)
		c.reply("9")
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"agent/tasks","params":{}}`)
	var tasks struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
			Prompt string `json:"prompt"`
		} `json:"tasks"`
	}
	r := c.reply("3")
	if err := json.Unmarshal(r.Result, &tasks); err != nil || len(tasks.Tasks) != 1 {
		t.Fatalf("agent/tasks = %s (%v)", r.Result, err)
	}
	if tasks.Tasks[0].Prompt != want {
		t.Errorf("agent/tasks prompt = %q, want %q", tasks.Tasks[0].Prompt, want)
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"agent/cancel","params":{"taskId":%q}}`, tasks.Tasks[0].TaskID))
	c.reply("4")
	var res runResult
	if err := json.Unmarshal(c.reply("2").Result, &res); err != nil || res.StopReason != "cancelled" {
		t.Errorf("agent/run = %+v (%v), want cancelled", res, err)
	}
}
