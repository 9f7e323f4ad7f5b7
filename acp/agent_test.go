package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

func TestInitializeAndAPlainTurn(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{Text: "hello from the model"})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "say hello"}}})
	var init initializeResponse
	json.Unmarshal(out.Steps[0].Result, &init)
	if init.ProtocolVersion != 1 || init.AgentInfo.Name != "agentls" || !init.AgentCapabilities.LoadSession {
		t.Errorf("initialize: %s", out.Steps[0].Result)
	}
	var pr promptResponse
	json.Unmarshal(out.Steps[2].Result, &pr)
	if pr.StopReason != StopEndTurn {
		t.Errorf("prompt: %s %+v", out.Steps[2].Result, out.Steps[2].Error)
	}
	if got := out.text(); got != "hello from the model" {
		t.Errorf("agent_message_chunk text = %q", got)
	}
	// The turn's usage: how full the window is, as the last update.
	var usage []updateIn
	for _, u := range out.Updates {
		if u.Update.SessionUpdate == "usage_update" {
			usage = append(usage, u.Update)
		}
	}
	if len(usage) != 1 || usage[0].Used == nil || usage[0].Size == nil || *usage[0].Used <= 0 || *usage[0].Size < *usage[0].Used {
		t.Fatalf("usage_update = %+v, want one with 0 < used <= size", usage)
	}
	if last := out.Updates[len(out.Updates)-1].Update.SessionUpdate; last != "usage_update" {
		t.Errorf("last update = %s, want usage_update", last)
	}
}

// faultServer is TOML for a user-config fault server named fs with marker
// in its command line.
func faultServer(t *testing.T, marker string) string {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	return fmt.Sprintf("[mcp.servers.fs]\ncommand = %q\nargs = [\"-marker\", %q]\n", bin, marker)
}

func (r clientRun) toolUpdates(id string) []updateIn {
	var out []updateIn
	for _, u := range r.Updates {
		if u.Update.ToolCallID == id {
			out = append(out, u.Update)
		}
	}
	return out
}

func (r clientRun) stopReason(i int) StopReason {
	var pr promptResponse
	json.Unmarshal(r.Steps[i].Result, &pr)
	return pr.StopReason
}

// lastModelRequest is the body of the last request the model was sent.
func (w *world) lastModelRequest() string {
	reqs := w.model.ModelRequests("openai")
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[len(reqs)-1].Body)
}

func TestMCPCallAsksAndRunsWhenAllowed(t *testing.T) {
	marker := "acp-allow-" + t.Name()
	w := newWorld(t, faultServer(t, marker))
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__getenv", Input: `{"text":"AGENTLS_NOPE"}`}}},
		modeltest.Turn{Text: "done"},
	)
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "read the env", Answers: []string{"allow_once"}}}})
	if len(out.Permissions) != 1 {
		t.Fatalf("want one session/request_permission, got %d", len(out.Permissions))
	}
	p := out.Permissions[0]
	if p.ToolCall.ToolCallID != "c1" {
		t.Errorf("the permission names the tool call it gates: %+v", p.ToolCall)
	}
	kinds := map[string]bool{}
	for _, o := range p.Options {
		kinds[o.Kind] = true
	}
	if !kinds["allow_once"] || !kinds["allow_always"] || !kinds["reject_once"] {
		t.Errorf("an MCP call offers allow_once, allow_always and reject_once: %+v", p.Options)
	}
	ups := out.toolUpdates("c1")
	if len(ups) < 3 || ups[0].SessionUpdate != updateToolCall || ups[0].Kind != "other" || ups[0].Status != "pending" || len(ups[0].RawInput) == 0 {
		t.Fatalf("the call starts with a pending tool_call carrying rawInput: %+v", ups)
	}
	statuses := []string{}
	for _, u := range ups[1:] {
		if u.Status != "" {
			statuses = append(statuses, u.Status)
		}
	}
	if strings.Join(statuses, ",") != "in_progress,completed" {
		t.Errorf("statuses after pending = %v, want in_progress then completed", statuses)
	}
	last := ups[len(ups)-1].contents()
	if len(last) == 0 || last[0].Content == nil || !strings.Contains(last[0].Content.Text, "<unset>") {
		t.Errorf("the completed update carries the result: %s", ups[len(ups)-1].Content)
	}
	if out.stopReason(2) != StopEndTurn || out.text() != "done" {
		t.Errorf("turn: %s, text %q", out.Steps[2].Result, out.text())
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

func TestRejectionIsToldToTheModel(t *testing.T) {
	w := newWorld(t, faultServer(t, "acp-reject-"+t.Name()))
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__getenv", Input: `{"text":"HOME"}`}}},
		modeltest.Turn{Text: "ok, I will not"},
	)
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "read HOME", Answers: []string{"reject_once"}}}})
	ups := out.toolUpdates("c1")
	if len(ups) == 0 || ups[len(ups)-1].Status != "failed" {
		t.Errorf("a rejected call ends failed: %+v", ups)
	}
	if !strings.Contains(w.lastModelRequest(), "denied by the user") {
		t.Errorf("the model was not told of the denial: %s", w.lastModelRequest())
	}
	if out.stopReason(2) != StopEndTurn {
		t.Errorf("turn: %s", out.Steps[2].Result)
	}
}

func TestWriteGoesThroughTheEditorWithADiff(t *testing.T) {
	w := newWorld(t, "")
	path := filepath.Join(w.root, "a.txt")
	if err := os.WriteFile(path, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "edit_file", Input: `{"path":"a.txt","old_text":"unsaved","new_text":"edited"}`}}},
		modeltest.Turn{Text: "edited"},
	)
	p := plan{Buffers: map[string]string{path: "unsaved buffer\n"}, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "edit a.txt", Answers: []string{"allow_once"}}}}
	p.FS.Read, p.FS.Write = true, true
	out := w.run(p)
	if len(out.Permissions) != 1 {
		t.Fatalf("want one permission, got %d; updates %+v reads %v", len(out.Permissions), out.Updates, out.Reads)
	}
	d := out.Permissions[0].ToolCall.contents()
	if len(d) != 1 || d[0].Type != "diff" || d[0].Path != path || d[0].OldText == nil || *d[0].OldText != "unsaved buffer\n" || *d[0].NewText != "edited buffer\n" {
		t.Errorf("the permission shows the diff against the editor's buffer: %+v", d)
	}
	if len(out.Writes) != 1 || out.Writes[0].Path != path || out.Writes[0].Content != "edited buffer\n" {
		t.Errorf("the edit goes through fs/write_text_file: %+v", out.Writes)
	}
	if b, _ := os.ReadFile(path); string(b) != "on disk\n" {
		t.Errorf("the disk was touched: %q", b)
	}
	ups := out.toolUpdates("w1")
	if len(ups) == 0 || ups[0].Kind != "edit" || len(ups[0].Locations) != 1 || ups[0].Locations[0].Path != path {
		t.Errorf("the edit's tool_call has kind edit and the file's location: %+v", ups)
	}
	if final := ups[len(ups)-1]; final.Status != "completed" || len(final.contents()) == 0 || final.contents()[0].Type != "diff" {
		t.Errorf("the completed edit shows its diff: %+v", final)
	}
}

func TestCancelDuringAPendingPermission(t *testing.T) {
	marker := "acp-cancel-" + t.Name()
	w := newWorld(t, faultServer(t, marker))
	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__getenv", Input: `{"text":"HOME"}`}}})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "read HOME", Answers: []string{"cancel"}}}})
	if out.stopReason(2) != StopCancelled {
		t.Errorf("a cancelled turn answers stopReason cancelled: %s %+v", out.Steps[2].Result, out.Steps[2].Error)
	}
	ups := out.toolUpdates("c1")
	if len(ups) == 0 || ups[len(ups)-1].Status != "failed" {
		t.Errorf("the cancelled call ends failed, before the response: %+v", ups)
	}
	if w.model.Pending() != 0 || len(w.model.ModelRequests("openai")) != 1 {
		t.Errorf("the model was asked again after the cancel: %d requests", len(w.model.ModelRequests("openai")))
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

func TestEditorServerStartsOnlyWhenAllowed(t *testing.T) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	for _, c := range []struct {
		answer  string
		running bool
	}{{"allow_once", true}, {"reject_once", false}} {
		t.Run(c.answer, func(t *testing.T) {
			marker := "acp-editor-" + c.answer + "-" + filepath.Base(t.TempDir())
			w := newWorld(t, "")
			w.model.Script(modeltest.Turn{Text: "hi"})
			servers, _ := json.Marshal([]mcpServer{{Name: "proj", Command: bin, Args: []string{"-marker", marker}, Env: []envVariable{{"PROJ_TOKEN", "x"}}}})
			out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
				{Op: "prompt", Text: "hello", Answers: []string{c.answer}}}})
			if len(out.Permissions) != 1 {
				t.Fatalf("want one launch permission, got %d", len(out.Permissions))
			}
			p := out.Permissions[0]
			if p.MarkerRunning == nil || *p.MarkerRunning {
				t.Errorf("the editor's server ran before it was allowed")
			}
			if step := out.Steps[1]; step.MarkerRunning == nil || *step.MarkerRunning {
				t.Errorf("the editor's server ran right after session/new")
			}
			card := p.ToolCall.contents()
			if len(card) == 0 || card[0].Content == nil || !strings.Contains(card[0].Content.Text, bin) ||
				!strings.Contains(card[0].Content.Text, "PROJ_TOKEN") || !strings.Contains(card[0].Content.Text, w.root) {
				t.Errorf("the launch card shows the command, env names and cwd: %+v", card)
			}
			if got := out.Steps[2].MarkerRunning; got == nil || *got != c.running {
				t.Errorf("after %s the server runs = %v, want %v", c.answer, got, c.running)
			}
			testenv.WaitNoProcesses(t, marker, 5*time.Second)
		})
	}
}

func TestLoadReplaysAnEarlierSession(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "r1", Name: "list_directory", Input: `{"path":"."}`}}},
		modeltest.Turn{Text: "the folder is empty"},
	)
	first := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "what is here?"}}})
	var ns newSessionResponse
	json.Unmarshal(first.Steps[1].Result, &ns)
	second := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "list", Cwd: w.root}, {Op: "load", Cwd: w.root, SessionID: ns.SessionID}}})
	var ls listSessionsResponse
	json.Unmarshal(second.Steps[1].Result, &ls)
	if len(ls.Sessions) != 1 || ls.Sessions[0].SessionID != ns.SessionID || ls.Sessions[0].Title != "what is here?" {
		t.Errorf("session/list: %s", second.Steps[1].Result)
	}
	if second.Steps[2].Error != nil {
		t.Fatalf("session/load: %+v", second.Steps[2].Error)
	}
	var kinds []string
	for _, u := range second.Updates {
		if u.SessionID != ns.SessionID {
			t.Errorf("a replayed update names another session: %s", u.SessionID)
		}
		kinds = append(kinds, u.Update.SessionUpdate)
	}
	want := "user_message_chunk,tool_call,tool_call_update,agent_message_chunk,available_commands_update"
	if strings.Join(kinds, ",") != want {
		t.Errorf("replay = %v, want %s", kinds, want)
	}
	if second.text() != "the folder is empty" {
		t.Errorf("replayed text = %q", second.text())
	}
}

// The schema check must be able to fail: a message schema/v1 rejects is
// reported as a violation.
func TestTheSchemaCheckCatchesABadMessage(t *testing.T) {
	w := newWorld(t, "")
	node := testenv.Tool(t, "node")
	out := w.runRaw(plan{Cmd: []string{node, filepath.Join(testenv.RepoRoot(), "acp", "testdata", "bad_agent.mjs")}, Steps: []step{{Op: "initialize"}}})
	if len(out.Violations) == 0 || !strings.Contains(out.Violations[0], "InitializeResponse") {
		t.Errorf("a bad initialize response passed the schema check: %+v", out.Violations)
	}
}

// Closing stdin ends agentls and every MCP server it started, grandchildren
// and servers that ignore stdin's end included.
func TestNothingOutlivesStdin(t *testing.T) {
	marker := "acp-orphans-" + filepath.Base(t.TempDir())
	bin := testenv.GoBinary(t, "./internal/faultserver")
	w := newWorld(t, fmt.Sprintf("[mcp.servers.fs]\ncommand = %q\nargs = [\"-marker\", %q, \"-child\", \"-linger\"]\n", bin, marker))
	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__echo", Input: `{"text":"hi"}`}}}, modeltest.Turn{Text: "ok"})
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "echo", Answers: []string{"allow_once"}}}})
	if r := out.Steps[2].MarkerRunning; r == nil || !*r {
		t.Fatalf("the server was not running during the session, so this proves nothing")
	}
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// A session that loading has to repair (a torn line set aside) replays
// through session/load with agentls's note first, naming the side file, and
// the intact turns after it.
func TestLoadSaysWhatTheRepairSetAside(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{Text: "first answer"}, modeltest.Turn{Text: "second answer"})
	first := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "one"}, {Op: "prompt", Text: "two"}}})
	var ns newSessionResponse
	json.Unmarshal(first.Steps[1].Result, &ns)
	files, _ := filepath.Glob(filepath.Join(w.state, "agentls", "sessions", "*", ns.SessionID+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("session file of %s: %v", ns.SessionID, files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	torn := strings.Join(lines[:2], "") + `{"role":"user","content":[{"ty` + "\n" + strings.Join(lines[2:], "")
	if err := os.WriteFile(files[0], []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	second := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "load", Cwd: w.root, SessionID: ns.SessionID}}})
	if second.Steps[1].Error != nil {
		t.Fatalf("session/load: %+v", second.Steps[1].Error)
	}
	text := second.text()
	if !strings.HasPrefix(text, "[agentls: session "+ns.SessionID+": set aside 1 line(s)") || !strings.Contains(text, files[0]+".set-aside") {
		t.Errorf("replayed text = %q, want the repair note first, naming the side file", text)
	}
	if !strings.HasSuffix(text, "first answersecond answer") {
		t.Errorf("replayed text = %q, want both answers after the note", text)
	}
}
