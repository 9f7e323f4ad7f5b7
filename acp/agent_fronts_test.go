package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// The fake-model scenarios both fronts must agree on. Each runs once
// through `agentls serve` (LSP agent/run, agent/requestApproval,
// agent/event) and once through `agentls acp` (the ACP SDK client), and
// both outcomes must equal want: one table, so the fronts cannot drift.
var frontScenarios = []struct {
	name    string
	config  string // extra user config; FAULT is replaced by the fault server's path
	turns   []modeltest.Turn
	answers []string // the user's answers to the approvals, in order
	want    outcome
	told    string // a text the model's last request (its JSON) must contain
}{
	{name: "plain answer", turns: []modeltest.Turn{{Text: "hello"}},
		want: outcome{StopReason: "end_turn", Text: "hello"}},
	{name: "read-only built-in runs without asking",
		turns: []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "l1", Name: "list_directory", Input: `{"path":"."}`}}}, {Text: "listed"}},
		want:  outcome{StopReason: "end_turn", Text: "listed", Calls: []string{"l1:completed"}}},
	{name: "MCP call allowed", config: faultTOML,
		turns:   []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "m1", Name: "fs__getenv", Input: `{"text":"AGENTLS_NOPE"}`}}}, {Text: "read"}},
		answers: []string{"allow_once"},
		want:    outcome{StopReason: "end_turn", Text: "read", Calls: []string{"m1:completed"}, Approvals: 1}, told: `"role":"tool","content":"\u003cunset\u003e"`},
	{name: "MCP call rejected is told to the model", config: faultTOML,
		turns:   []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "m1", Name: "fs__getenv", Input: `{"text":"HOME"}`}}}, {Text: "fine"}},
		answers: []string{"reject_once"},
		want:    outcome{StopReason: "end_turn", Text: "fine", Calls: []string{"m1:failed"}, Approvals: 1}, told: "denied by the user"},
	{name: "MCP server's question answered by a choice", config: faultTOML + askPolicy,
		turns:   []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "fs__ask", Input: colorQuestion}}}, {Text: "asked"}},
		answers: []string{"choice_1"},
		want:    outcome{StopReason: "end_turn", Text: "asked", Calls: []string{"q1:completed"}, Approvals: 1}, told: `\"action\":\"accept\",\"content\":{\"color\":\"g\"}`},
	{name: "MCP server's question declined", config: faultTOML + askPolicy,
		turns:   []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "fs__ask", Input: colorQuestion}}}, {Text: "declined"}},
		answers: []string{"decline"},
		want:    outcome{StopReason: "end_turn", Text: "declined", Calls: []string{"q1:completed"}, Approvals: 1}, told: `\"action\":\"decline\"`},
	{name: "command allowed", config: "[agent]\nautopilot = false\n",
		turns:   []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo front-table"}`}}}, {Text: "ran"}},
		answers: []string{"allow_once"},
		want:    outcome{StopReason: "end_turn", Text: "ran", Calls: []string{"c1:completed"}, Approvals: 1}, told: "front-table"},
	{name: "unknown tool fails",
		turns: []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{ID: "u1", Name: "no_such_tool"}}}, {Text: "sorry"}},
		want:  outcome{StopReason: "end_turn", Text: "sorry", Calls: []string{"u1:failed"}}, told: "unknown tool"},
	{name: "iteration limit", config: "[agent]\nmax_iterations = 2\n",
		turns: []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{{ID: "a", Name: "list_directory", Input: `{"path":"."}`}}},
			{ToolCalls: []modeltest.ToolCall{{ID: "b", Name: "list_directory", Input: `{"path":"."}`}}}},
		want: outcome{StopReason: "max_iterations", Calls: []string{"a:completed", "b:completed"}}},
}

const faultTOML = "[mcp.servers.fs]\ncommand = \"FAULT\"\n"

// askPolicy allows the fault server's ask tool (an elicitation), and
// colorQuestion is its one-choice form.
const (
	askPolicy     = "[mcp.policy]\n\"fs__ask\" = \"allow\"\n"
	colorQuestion = `{"message":"Pick a colour","schema":{"type":"object","properties":{"color":{"type":"string","enum":["r","g"]}},"required":["color"]}}`
)

// outcome is a turn as either front shows it, in the core's words: the
// stop reason, the streamed text, each tool call's final status (denied
// and cancelled are failed, as ACP has them) and how many approvals asked.
type outcome struct {
	StopReason string
	Text       string
	Calls      []string
	Approvals  int
}

func TestScenariosAgreeAcrossFronts(t *testing.T) {
	fault := testenv.GoBinary(t, "./internal/faultserver")
	for _, sc := range frontScenarios {
		for _, front := range []string{"lsp", "acp"} {
			t.Run(sc.name+"/"+front, func(t *testing.T) {
				w := newWorld(t, strings.ReplaceAll(sc.config, "FAULT", fault))
				w.model.Script(sc.turns...)
				var got outcome
				if front == "lsp" {
					got = runLSP(t, w, "turn", sc.answers)
				} else {
					got = runACP(w, "turn", sc.answers)
				}
				if !reflect.DeepEqual(got, sc.want) {
					t.Errorf("%s front: got %+v, want %+v", front, got, sc.want)
				}
				if sc.told != "" && !strings.Contains(w.lastModelRequest(), sc.told) {
					t.Errorf("%s front: the model was not told %q: %s", front, sc.told, truncate(w.lastModelRequest(), 1500))
				}
			})
		}
	}
}

// acpStopReasons maps ACP's stop reasons back to the core's.
var acpStopReasons = map[StopReason]string{StopEndTurn: "end_turn", StopCancelled: "cancelled", StopMaxTurnRequests: "max_iterations"}

func runACP(w *world, prompt string, answers []string) outcome {
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: prompt, Answers: answers}}})
	o := outcome{Text: out.text(), Approvals: len(out.Permissions), StopReason: "error"}
	if out.Steps[2].Error == nil {
		o.StopReason = acpStopReasons[out.stopReason(2)]
	}
	final := map[string]string{}
	var order []string
	for _, u := range out.Updates {
		id := u.Update.ToolCallID
		if id == "" {
			continue
		}
		if _, ok := final[id]; !ok {
			order = append(order, id)
			final[id] = ""
		}
		if u.Update.Status == "completed" || u.Update.Status == "failed" {
			final[id] = u.Update.Status
		}
	}
	for _, id := range order {
		o.Calls = append(o.Calls, id+":"+final[id])
	}
	return o
}

// lspFinal maps the LSP front's final statuses to ACP's two.
var lspFinal = map[string]string{"completed": "completed", "failed": "failed", "denied": "failed", "cancelled": "failed"}

// runLSP runs one agent/run through `agentls serve` with a client that
// answers agent/requestApproval from answers and collects agent/event.
func runLSP(t *testing.T, w *world, prompt string, answers []string) outcome {
	t.Helper()
	cmd := exec.Command(w.bin, "serve")
	cmd.Dir = w.root
	for k, v := range w.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(os.Environ(), cmd.Env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start agentls serve: %v", err)
	}
	var mu sync.Mutex
	var o outcome
	var events []json.RawMessage
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{stdout, stdin}))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		mu.Lock()
		defer mu.Unlock()
		switch req.Method() {
		case "agent/requestApproval":
			o.Approvals++
			if len(answers) == 0 {
				return reply(ctx, map[string]string{"outcome": "cancelled"}, nil)
			}
			a := answers[0]
			answers = answers[1:]
			return reply(ctx, map[string]string{"outcome": "selected", "optionId": a}, nil)
		case "agent/event":
			events = append(events, req.Params())
			return nil
		case "window/workDoneProgress/create":
			return reply(ctx, nil, nil)
		}
		if _, isCall := req.(*jsonrpc2.Call); isCall {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "test client: no "+req.Method()))
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	call := func(method string, params, result any) {
		if _, err := conn.Call(ctx, method, params, result); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	uri := (&url.URL{Scheme: "file", Path: w.root}).String()
	call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": uri,
		"workspaceFolders": []map[string]string{{"uri": uri, "name": "ws"}},
		"capabilities":     map[string]any{"experimental": map[string]any{"agentls": map[string]any{"approvals": true, "events": true}}},
	}, &map[string]any{})
	conn.Notify(ctx, "initialized", map[string]any{})
	var res struct{ StopReason, Text string }
	call("agent/run", map[string]any{"prompt": prompt}, &res)
	call("shutdown", nil, nil)
	conn.Notify(ctx, "exit", nil)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("agentls serve: %v", err)
	}
	conn.Close()
	<-conn.Done()

	mu.Lock()
	defer mu.Unlock()
	o.StopReason = res.StopReason
	var text strings.Builder
	for _, raw := range events {
		var e struct{ Type, Delta, ToolCallID, Status string }
		json.Unmarshal(raw, &e)
		switch e.Type {
		case "text":
			text.WriteString(e.Delta)
		case "tool_result":
			o.Calls = append(o.Calls, fmt.Sprintf("%s:%s", e.ToolCallID, lspFinal[e.Status]))
		}
	}
	o.Text = text.String()
	return o
}

// rwc joins a child's stdout and stdin into one stream.
type rwc struct {
	io.ReadCloser
	io.WriteCloser
}

func (p rwc) Close() error {
	p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

// truncate cuts s to n bytes for a test's message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
