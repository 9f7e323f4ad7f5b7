package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

func TestArgumentsThatAreNotAJSONObjectNeverRunTheTool(t *testing.T) {
	for _, format := range formats {
		for _, tc := range []struct {
			name, tool, input string
			expects           []string // what the error must tell the model the tool expects
		}{
			{name: "an array is refused with the required fields", tool: "write_file", input: `[1,2]`, expects: []string{`required fields: "content", "path"`}},
			{name: "text that is not JSON is refused with the required fields", tool: "write_file", input: `not json`, expects: []string{`required fields: "content", "path"`}},
			{name: "a JSON string is refused", tool: "read_file", input: `"notes.txt"`, expects: []string{`required fields: "path"`}},
			{name: "a tool with no required field says so", tool: "list_directory", input: `[1,2]`, expects: []string{"no required fields", `"path"`}},
		} {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				f := newFixture(t, format, nil)
				f.ws.applies = true
				writeFileT(t, filepath.Join(f.dir, "notes.txt"), "secret notes\n")
				f.model.Script(
					modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "bad1", Name: tc.tool, Input: tc.input}}},
					modeltest.Turn{Text: "ok"},
				)
				ev := &events{}
				ap := &answer{opt: "allow_once"} // would let a write through, if the tool ran
				res := f.run(t, RunRequest{Prompt: "go"}, TaskIO{Events: ev, Approver: ap})
				if res.StopReason != "end_turn" {
					t.Fatalf("result = %+v", res)
				}
				trs := f.model.Requests()[1].ToolResults()
				if len(trs) != 1 || trs[0].ToolUseID != "bad1" || !trs[0].IsError {
					t.Fatalf("tool results = %+v, want one error for bad1", trs)
				}
				got := trs[0].Content
				for _, want := range append([]string{"ERROR: the arguments for " + tc.tool + " were not a valid JSON object", tc.tool + " expects a JSON object"}, tc.expects...) {
					if !strings.Contains(got, want) {
						t.Errorf("result %q lacks %q", got, want)
					}
				}
				if strings.Contains(got, "notes.txt") && !strings.Contains(tc.input, "notes.txt") {
					t.Errorf("the tool ran: result %q lists the workspace", got)
				}
				if len(ap.asked()) != 0 || len(f.ws.writes) != 0 {
					t.Errorf("the tool ran: approvals %+v, writes %v", ap.asked(), f.ws.writes)
				}
				if _, err := os.Stat(filepath.Join(f.dir, "content")); err == nil {
					t.Errorf("the tool ran: a file appeared")
				}
				checkCallLifecycle(t, ev.list(), "bad1", "failed")
				assertStoredValid(t, f, res.SessionID)
			})
		}
	}
}

func TestMCPToolArgumentsThatAreNotAJSONObjectNeverReachTheServer(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			// Allowed by policy, so only the argument check stands between the model and the server.
			f := newFixture(t, format, withFilesystemServer(t, allowRule("fs__*", "allow")))
			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "bad1", Name: "fs__write_file", Input: `[1,2]`}}},
				modeltest.Turn{Text: "ok"},
			)
			ev := &events{}
			res := f.run(t, RunRequest{Prompt: "go"}, TaskIO{Events: ev})
			if res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			trs := f.model.Requests()[1].ToolResults()
			if len(trs) != 1 || !trs[0].IsError {
				t.Fatalf("tool results = %+v, want one error", trs)
			}
			got := trs[0].Content
			for _, want := range []string{"were not a valid JSON object: [1,2]", `fs__write_file expects a JSON object with required fields: "content", "path"`} {
				if !strings.Contains(got, want) {
					t.Errorf("result %q lacks %q (the server's own schema)", got, want)
				}
			}
			for _, e := range ev.ofType("tool_call") {
				if e.ToolCallID == "bad1" && e.Status == "running" {
					t.Errorf("the call was run: %+v", e)
				}
			}
			checkCallLifecycle(t, ev.list(), "bad1", "failed")
		})
	}
}
