package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// eventFields are the fields docs/protocol.md section 3 gives each agent/event
// type; a client may read every one of them without checking it exists.
var eventFields = map[string][]string{
	"text":        {"delta"},
	"tool_call":   {"toolCallId", "tool", "title", "arguments", "status"},
	"tool_result": {"toolCallId", "status", "output", "isError"},
	"approval":    {"approvalId", "state"},
	"status":      {"message"},
	"done":        {"stopReason", "text", "usage"},
}

// toolStatuses is the value set of a tool call's status.
var toolStatuses = map[string]bool{"pending": true, "awaiting_approval": true, "running": true,
	"completed": true, "failed": true, "denied": true, "cancelled": true}

// checkEvents checks every agent/event of one task against the protocol:
// the common fields, each type's fields, seq rising by exactly one from 1,
// and the tool call status values. It returns the events decoded.
func checkEvents(t *testing.T, c *testClient) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, m := range c.messages("agent/event") {
		var ev map[string]any
		if err := json.Unmarshal(m.Params, &ev); err != nil {
			t.Fatalf("agent/event %s: %v", m.Params, err)
		}
		for _, k := range []string{"taskId", "sessionId", "seq", "type"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("agent/event %s lacks %q", m.Params, k)
			}
		}
		if seq, _ := ev["seq"].(float64); int(seq) != i+1 {
			t.Errorf("event %d has seq %v, want %d (seq rises by one per task)", i, ev["seq"], i+1)
		}
		typ, _ := ev["type"].(string)
		fields, known := eventFields[typ]
		if !known {
			t.Errorf("agent/event of unknown type %q: %s", typ, m.Params)
		}
		for _, k := range fields {
			if _, ok := ev[k]; !ok {
				t.Errorf("%s event %s lacks %q", typ, m.Params, k)
			}
		}
		if typ == "tool_call" || typ == "tool_result" {
			if s, _ := ev["status"].(string); !toolStatuses[s] {
				t.Errorf("%s event has status %q, not one of the protocol's", typ, ev["status"])
			}
		}
		if typ == "done" {
			u, _ := ev["usage"].(map[string]any)
			if _, ok := u["inputTokens"]; !ok {
				t.Errorf("done usage %v lacks inputTokens", ev["usage"])
			}
			if _, ok := u["outputTokens"]; !ok {
				t.Errorf("done usage %v lacks outputTokens", ev["usage"])
			}
		}
		out = append(out, ev)
	}
	return out
}

// toolStatusTrail is the statuses of the tool_call events, in order.
func toolStatusTrail(evs []map[string]any) string {
	var s []string
	for _, ev := range evs {
		if ev["type"] == "tool_call" {
			s = append(s, fmt.Sprint(ev["status"]))
		}
	}
	return strings.Join(s, ",")
}

func TestAgentEventsCarryEveryFieldOfTheirType(t *testing.T) {
	tests := []struct {
		name   string
		option string // the user's answer to the approval
		input  string // run_command's input
		status string // the tool call's final status
		result string // tool_result's status
		isErr  bool
	}{
		{name: "an approved call runs and completes", option: "allow_once", input: `{"command":"true"}`, status: "completed", result: "completed"},
		{name: "a denied call is denied and never runs", option: "reject_once", input: `{"command":"echo never-run"}`, status: "denied", result: "denied", isErr: true},
		{name: "an approved call that fails is failed", option: "allow_once", input: `{"command":"exit 3"}`, status: "failed", result: "failed", isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			c.setAnswer(answerWith("agent/requestApproval", map[string]any{"outcome": "selected", "optionId": tt.option}))
			c.initialize(e.root, caps(true, true, false))
			e.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "run_command", Input: tt.input}}},
				modeltest.Turn{},
			)
			res, errc := c.runAsync(map[string]any{"prompt": "run it"})
			r := c.await(res, errc)
			if r.StopReason != "end_turn" {
				t.Fatalf("result = %+v", r)
			}
			evs := checkEvents(t, c)
			// The call is announced first (a built-in tool announces
			// itself running, then asks from inside), then waits, then
			// runs only if allowed, then ends with its final status.
			want := "awaiting_approval," + map[bool]string{true: "running,", false: ""}[tt.option == "allow_once"] + tt.status
			got := toolStatusTrail(evs)
			if first, rest, _ := strings.Cut(got, ","); (first != "pending" && first != "running") || rest != want {
				t.Errorf("tool_call statuses = %s, want pending or running, then %s", got, want)
			}
			var sawResult, sawApproval bool
			for _, ev := range evs {
				switch ev["type"] {
				case "tool_call":
					if fmt.Sprint(ev["arguments"]) != fmt.Sprint(map[string]any{"command": strings.TrimSuffix(strings.TrimPrefix(tt.input, `{"command":"`), `"}`)}) {
						t.Errorf("tool_call %v: arguments = %v, want the call's input on every status", ev["status"], ev["arguments"])
					}
				case "tool_result":
					sawResult = true
					if ev["status"] != tt.result || ev["isError"] != tt.isErr {
						t.Errorf("tool_result = %v, want status %s isError %v", ev, tt.result, tt.isErr)
					}
				case "approval":
					if ev["state"] == "resolved" {
						sawApproval = true
						if ev["optionId"] != tt.option {
							t.Errorf("resolved approval event %v, want optionId %s", ev, tt.option)
						}
					}
				case "done":
					if ev["text"] != "" || ev["stopReason"] != "end_turn" {
						t.Errorf("done = %v, want end_turn with the (empty) final text", ev)
					}
				}
			}
			if !sawResult || !sawApproval {
				t.Errorf("events lack a tool_result (%v) or a resolved approval (%v)", sawResult, sawApproval)
			}
			// A task from agent/run answers in its result: no pop-up.
			if n := len(c.messages("window/showMessage")); n != 0 {
				t.Errorf("agent/run popped up %d messages; summaries are for commands and code actions", n)
			}
		})
	}
}
