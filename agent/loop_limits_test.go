package agent

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/mcp/toolname"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

func TestToolResultsAreCappedForTheModelAndPreviewedInEvents(t *testing.T) {
	f := newFixture(t, "anthropic", func(o *Options) {
		o.Config.MCP.ResultMaxBytes = 1000
		o.Config.Agent.Autopilot = true // ls-like safe commands run without a card
	})
	writeFileT(t, f.dir+"/big.txt", strings.Repeat("0123456789\n", 2000))
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "search_text", Input: `{"pattern":"0123"}`}}},
		modeltest.Turn{Text: "ok"},
	)
	ev := &events{}
	f.run(t, RunRequest{Prompt: "search"}, TaskIO{Events: ev})
	trs := f.model.Requests()[1].ToolResults()
	if len(trs) != 1 || len(trs[0].Content) > 1100 || !strings.Contains(trs[0].Content, "bytes cut]") {
		t.Fatalf("tool result is %d bytes (%.80q...), want at most ~1000 with a cut marker", len(trs[0].Content), trs[0].Content)
	}
	res := ev.ofType("tool_result")
	if len(res) != 1 || len(res[0].Output) > previewMax+100 {
		t.Errorf("tool_result event preview is %d bytes", len(res[0].Output))
	}
}

// Events are redacted; the card is not: it shows exactly what will be
// written (a redacted card once hid a line the user then approved).
func TestEventsRedactSecretsInArgumentsCardsShowThem(t *testing.T) {
	f := newFixture(t, "openai", nil)
	const secret = "sk-live-abcdefghijklmnopqrstuvwxyz0123456789"
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"env.txt","content":"API_KEY=` + secret + `"}`}}},
		modeltest.Turn{Text: "ok"},
	)
	ev := &events{}
	ap := &answer{opt: "reject_once"}
	f.run(t, RunRequest{Prompt: "write"}, TaskIO{Events: ev, Approver: ap})
	all, _ := json.Marshal(ev.list())
	if strings.Contains(string(all), secret) {
		t.Errorf("events carry the secret: %s", all)
	}
	if cards := ap.asked(); len(cards) != 1 || !strings.Contains(cards[0].Detail, "API_KEY="+secret) || !strings.Contains(cards[0].Detail, "env.txt") {
		t.Errorf("write card = %+v, want the path and the exact content shown", cards)
	}
	calls := ev.ofType("tool_call")
	if len(calls) == 0 || !strings.Contains(string(calls[0].Arguments), "env.txt") {
		t.Errorf("tool_call arguments = %s, want them (redacted), not dropped", calls[0].Arguments)
	}
}

func TestMCPDescriptionsAreCappedAndBadNamesNeverReachTheModel(t *testing.T) {
	f := newFixture(t, "anthropic", withFilesystemServer(t))
	f.core.cfg.MCP.DescriptionMaxChars = 40
	f.model.Script(modeltest.Turn{Text: "ok"})
	f.run(t, RunRequest{Prompt: "hi"}, TaskIO{})
	var body struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(f.model.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tool := range body.Tools {
		if !toolname.Valid(tool.Name) {
			t.Errorf("illegal tool name sent: %q", tool.Name)
		}
		if strings.HasPrefix(tool.Name, "fs__") {
			n++
			prefix := `[fs] `
			if !strings.HasPrefix(tool.Description, prefix) || len([]rune(strings.TrimPrefix(tool.Description, prefix))) > 41 {
				t.Errorf("description of %s not capped at 40 characters: %q", tool.Name, tool.Description)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no fs__ tools offered: %+v", body.Tools)
	}
}

func TestCloseCancelsRunningTasks(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "forever and ever", Hang: true}) // a word streams out once the next begins
	ev := &events{}
	started := make(chan struct{})
	var once bool
	ev.on = func(e wire.Event) {
		if e.Type == "text" && !once {
			once = true
			close(started)
		}
	}
	task := f.core.Start(RunRequest{Prompt: "hang"}, TaskIO{Events: ev, Workspace: f.ws})
	<-started
	f.core.Close()
	if res := task.Result(); res.StopReason != "cancelled" {
		t.Fatalf("after Close: %+v, want cancelled", res)
	}
	if res := wait(t, f.core.Start(RunRequest{Prompt: "late"}, TaskIO{})); res.StopReason != "error" || !strings.Contains(res.Error, "shutting down") {
		t.Errorf("Start after Close = %+v", res)
	}
}

func TestTaskStateShowsAwaitingApproval(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a","content":"x"}`}}},
		modeltest.Turn{Text: "ok"},
	)
	var seen []string
	ap := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
		for _, ti := range f.core.Tasks() {
			seen = append(seen, string(ti.State))
		}
		return "reject_once", nil
	})
	f.run(t, RunRequest{Prompt: "x"}, TaskIO{Approver: ap})
	if strings.Join(seen, ",") != "awaiting_approval" {
		t.Errorf("task states while asking = %v", seen)
	}
}

// TestAPromptLargerThanTheWindowIsRefused: a prompt the model could never
// accept (larger than its whole context window) ends the task at once with
// an error saying so and what to do; nothing is sent, saved or echoed whole.
func TestAPromptLargerThanTheWindowIsRefused(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	prompt := "first line\n" + strings.Repeat("0123456789", 50<<20/10)
	var ev events
	res := f.run(t, RunRequest{Prompt: prompt}, TaskIO{Events: &ev})
	if res.StopReason != "error" || !strings.Contains(res.Error, "could never accept it") ||
		!strings.Contains(res.Error, "context window (200000 tokens)") || !strings.Contains(res.Error, "read or search it") {
		t.Fatalf("result = %+v", res)
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	if list, _ := f.core.Sessions(); len(list) != 0 {
		t.Errorf("sessions = %+v, want none saved", list)
	}
	if b, err := os.ReadFile(f.core.TranscriptPath(res.SessionID)); err == nil && (len(b) > 4000 || strings.Contains(string(b), "0123456789")) {
		t.Errorf("the transcript holds the prompt (%d bytes)", len(b))
	}
	for _, e := range ev.list() {
		if len(e.Message)+len(e.Text)+len(e.Delta) > 4000 {
			t.Errorf("event %s carries %d bytes", e.Type, len(e.Message)+len(e.Text))
		}
	}
}
