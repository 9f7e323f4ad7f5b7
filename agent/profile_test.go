package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// profilesFixture is a fixture whose [model] (the default profile) is
// Anthropic's wire with extended thinking and whose profile "oa" is the
// chat completions wire, both on the fake; the Core builds each provider
// from its table.
func profilesFixture(t *testing.T, state string) *fixture {
	t.Helper()
	f := newFixture(t, "anthropic", func(o *Options) {
		o.Provider = nil
		if state != "" {
			o.StateDir = state
		}
		o.Config.Model.Thinking = 2048
		o.Config.Model.MaxTokens = 4000
		o.Config.Profiles = map[string]config.Model{
			"oa": {Provider: "openai", Name: "gpt-4.1", BaseURL: o.Config.Model.BaseURL + "/v1", ContextWindow: 200000},
		}
	})
	return f
}

func doneOf(t *testing.T, ev *events) wire.Event {
	t.Helper()
	ds := ev.ofType("done")
	if len(ds) != 1 {
		t.Fatalf("%d done events; want 1", len(ds))
	}
	return ds[0]
}

// TestASessionSwitchesModelsAcrossWiresAndBack: a session starts on the
// Messages wire (Claude with extended thinking) and calls a tool, goes on
// on the chat completions wire where it calls another, and comes back.
// Every request is one its provider takes (the fake refuses a history its
// API would: a tool_use without its result, a tool message of no call, a
// foreign field, an unsigned or forged thinking block, a tool_use ids
// rule); the chat completions requests carry the tool turns as tool_calls
// and tool messages and nothing of Claude's thinking, and the Messages
// request after the switch back carries the thinking blocks as received,
// signature and all, and nothing of the other model's reasoning.
func TestASessionSwitchesModelsAcrossWiresAndBack(t *testing.T) {
	f := profilesFixture(t, "")
	writeFileT(t, filepath.Join(f.dir, "a.txt"), "hello from a\n")
	writeFileT(t, filepath.Join(f.dir, "b.txt"), "hello from b\n")
	const claudeThought, gptThought = "I should read a.txt first.", "Now b.txt, on the other model."
	f.model.Script(
		modeltest.Turn{Thinking: claudeThought, Text: "Reading a.", ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"a.txt"}`}}},
		modeltest.Turn{Text: "a.txt says hello from a."},
		modeltest.Turn{Thinking: gptThought, ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"b.txt"}`}}},
		modeltest.Turn{Text: "b.txt says hello from b."},
		modeltest.Turn{Text: "Both files greet."},
	)
	sid := f.core.NewChat("")
	turn := func(prompt, profile string) {
		t.Helper()
		ev := &events{}
		res := f.run(t, RunRequest{Prompt: prompt, SessionID: sid}, TaskIO{Approver: &answer{opt: string(wire.OptionAllowOnce)}, Events: ev})
		if res.StopReason != wire.StopEndTurn {
			t.Fatalf("%q on %s: %+v", prompt, profile, res)
		}
		if d := doneOf(t, ev); d.Profile != profile {
			t.Errorf("done event of %q: profile %q model %q; want profile %q", prompt, d.Profile, d.Model, profile)
		}
	}
	turn("what does a.txt say?", config.DefaultProfile)
	if err := f.core.SetModel(sid, "oa"); err != nil {
		t.Fatal(err)
	}
	turn("and b.txt?", "oa")
	if err := f.core.SetModel(sid, config.DefaultProfile); err != nil {
		t.Fatal(err)
	}
	turn("so?", config.DefaultProfile)

	an, oa := f.model.ModelRequests("anthropic"), f.model.ModelRequests("openai")
	if len(an) != 3 || len(oa) != 2 {
		t.Fatalf("%d Messages and %d chat completions requests; want 3 and 2", len(an), len(oa))
	}
	first := string(oa[0].Body)
	var chat struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(oa[0].Body, &chat); err != nil {
		t.Fatal(err)
	}
	var callID, resultID string
	for _, m := range chat.Messages {
		if len(m.ToolCalls) == 1 && m.ToolCalls[0].Function.Name == "read_file" {
			callID = m.ToolCalls[0].ID
		}
		if m.Role == "tool" {
			resultID = m.ToolCallID
		}
	}
	if callID == "" || callID != resultID {
		t.Errorf("the Claude turn's tool call reached the chat completions wire as call %q answered by %q; want a tool_calls entry and its tool message", callID, resultID)
	}
	if rs := oa[0].ToolResults(); len(rs) != 1 || !strings.Contains(rs[0].Content, "hello from a") {
		t.Errorf("tool results on the chat completions wire: %+v", rs)
	}
	for _, leak := range []string{claudeThought, "signature", `"thinking"`, "tool_use", "tool_result"} {
		if strings.Contains(first, leak) {
			t.Errorf("the chat completions request carries %q of the Messages wire:\n%s", leak, first)
		}
	}
	if got := oa[0].AssistantTexts(); len(got) != 2 || got[1] != "a.txt says hello from a." {
		t.Errorf("assistant texts on the chat completions wire %q", got)
	}

	back := string(an[2].Body)
	var msgs struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []map[string]any
		} `json:"messages"`
	}
	if err := json.Unmarshal(an[2].Body, &msgs); err != nil {
		t.Fatal(err)
	}
	signed := 0
	for _, m := range msgs.Messages {
		for _, b := range m.Content {
			if b["type"] == "thinking" && b["thinking"] == claudeThought && b["signature"] != "" {
				signed++
			}
		}
	}
	if signed != 1 {
		t.Errorf("the request back on Claude carries %d signed thinking blocks of the first turn as received; want 1:\n%s", signed, back)
	}
	for _, leak := range []string{gptThought, "reasoning_content", "tool_calls"} {
		if strings.Contains(back, leak) {
			t.Errorf("the Messages request carries %q of the chat completions wire:\n%s", leak, back)
		}
	}
	if rs := an[2].ToolResults(); len(rs) != 2 || !strings.Contains(rs[1].Content, "hello from b") {
		t.Errorf("tool results back on Claude: %+v; want both turns' results", rs)
	}
}

// TestTheModeAndModelOfASessionSurviveARestart: a session's mode and
// model profile are saved with it; a new Core on the same state (agentls
// restarted) resumes the session in them, and its next turn goes to that
// profile's wire; another session is in the configured ones.
func TestTheModeAndModelOfASessionSurviveARestart(t *testing.T) {
	state := t.TempDir()
	f := profilesFixture(t, state)
	sid := f.core.NewChat("")
	if err := f.core.SetMode(sid, wire.ModePlan); err != nil {
		t.Fatal(err)
	}
	if err := f.core.SetModel(sid, "oa"); err != nil {
		t.Fatal(err)
	}
	f.core.Close()
	if saved, ok, err := session.NewStore(state, f.dir).LoadControl(sid); err != nil || !ok || saved.Mode != wire.ModePlan || saved.Profile != "oa" {
		t.Fatalf("saved %+v, %v, %v; want plan and oa", saved, ok, err)
	}

	g := profilesFixture(t, state)
	g.dir, g.ws = f.dir, f.ws
	g.core.root = f.dir
	g.core.sessions = session.NewStore(state, f.dir)
	if m := g.core.Mode(sid); m != wire.ModePlan {
		t.Errorf("after a restart the session's mode is %s; want plan", m)
	}
	if p := g.core.Profile(sid); p != "oa" {
		t.Errorf("after a restart the session's profile is %q; want oa", p)
	}
	if m, p := g.core.Mode("other"), g.core.Profile("other"); m != wire.ModeAsk || p != config.DefaultProfile {
		t.Errorf("another session: %s on %q; want ask on default", m, p)
	}
	g.model.Script(modeltest.Turn{Text: "planned"})
	ev := &events{}
	if res := g.run(t, RunRequest{Prompt: "plan", SessionID: sid}, TaskIO{Events: ev}); res.StopReason != wire.StopEndTurn {
		t.Fatalf("resumed turn: %+v", res)
	}
	if d := doneOf(t, ev); d.Mode != wire.ModePlan || d.Profile != "oa" || d.Model != "gpt-4.1" {
		t.Errorf("done event %+v; want plan on oa (gpt-4.1)", d)
	}
	reqs := g.model.ModelRequests("")
	if len(reqs) != 1 || reqs[0].Format != "chat-completions" || !strings.Contains(reqs[0].System(), "plan mode") {
		t.Errorf("the resumed turn's request: %d requests, format %q; want one plan-mode request on the chat completions wire", len(reqs), reqs[0].Format)
	}
	if _, err := os.Stat(g.core.sessions.ControlPath(sid)); err != nil {
		t.Errorf("the control file: %v", err)
	}
}

func TestSetModelRefusesAProfileTheConfigDoesNotDeclare(t *testing.T) {
	f := profilesFixture(t, "")
	sid := f.core.NewChat("")
	err := f.core.SetModel(sid, "collector")
	if err == nil || !strings.Contains(err.Error(), `unknown model profile "collector"`) || !strings.Contains(err.Error(), `"default" "oa"`) {
		t.Fatalf("err = %v; want one naming the profiles that exist", err)
	}
	if p := f.core.Profile(sid); p != config.DefaultProfile {
		t.Errorf("profile %q after a refused switch", p)
	}
	if err := f.core.SetModel("../x", "oa"); err == nil {
		t.Error("a bad session id was taken")
	}
}

// A new chat started from a session keeps the mode and model chosen for
// it; one started from nothing takes the configured ones.
func TestANewChatKeepsTheModeAndModelOfTheOldOne(t *testing.T) {
	f := profilesFixture(t, "")
	old := f.core.NewChat("")
	if err := f.core.SetMode(old, wire.ModeAutoEdit); err != nil {
		t.Fatal(err)
	}
	if err := f.core.SetModel(old, "oa"); err != nil {
		t.Fatal(err)
	}
	next := f.core.NewChat(old)
	if m, p := f.core.Mode(next), f.core.Profile(next); m != wire.ModeAutoEdit || p != "oa" {
		t.Errorf("the new chat is %s on %q; want auto-edit on oa", m, p)
	}
	if saved, ok, _ := f.core.sessions.LoadControl(next); !ok || saved.Profile != "oa" {
		t.Errorf("the new chat's choice was not saved: %+v %v", saved, ok)
	}
	fresh := f.core.NewChat("")
	if m, p := f.core.Mode(fresh), f.core.Profile(fresh); m != wire.ModeAsk || p != config.DefaultProfile {
		t.Errorf("a chat from nothing is %s on %q; want ask on default", m, p)
	}
}
