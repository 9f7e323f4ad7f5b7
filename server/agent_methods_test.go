package server

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// hangingTask starts an agent/run whose model never answers and returns
// its agent/tasks row.
func hangingTask(t *testing.T, c *testClient, e *env) (map[string]any, <-chan runResult, <-chan error) {
	t.Helper()
	e.model.Script(modeltest.Turn{Hang: true})
	res, errc := c.runAsync(map[string]any{"prompt": "take forever\nsecond line"})
	var rows struct{ Tasks []map[string]any }
	waitUntil(t, "the task in agent/tasks", func() bool {
		c.mustCall("agent/tasks", map[string]any{}, &rows)
		return len(rows.Tasks) == 1
	})
	return rows.Tasks[0], res, errc
}

func TestTasksListEveryFieldAndCancelBySession(t *testing.T) {
	for _, how := range []string{"agent/cancel by sessionId", "agent/newChat on the session"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			c.initialize(e.root, caps(false, false, false))
			row, res, errc := hangingTask(t, c, e)
			for _, k := range []string{"taskId", "sessionId", "state", "prompt", "startedAt"} {
				if v, _ := row[k].(string); v == "" {
					t.Errorf("agent/tasks row %v: %q is empty", row, k)
				}
			}
			if _, err := time.Parse(time.RFC3339, row["startedAt"].(string)); err != nil {
				t.Errorf("startedAt %v is not an RFC 3339 time: %v", row["startedAt"], err)
			}
			if row["state"] != "running" || row["prompt"] != "take forever" {
				t.Errorf("row = %v, want the running task with its prompt's first line", row)
			}
			sid := row["sessionId"].(string)
			if how == "agent/cancel by sessionId" {
				// jsonrpc2 leaves the result untouched for a null one.
				var out any = "untouched"
				c.mustCall("agent/cancel", map[string]string{"sessionId": sid}, &out)
				if out != nil && out != "untouched" {
					t.Errorf("agent/cancel answered %v, want null", out)
				}
			} else {
				var chat struct{ SessionID string }
				c.mustCall("agent/newChat", map[string]string{"sessionId": sid}, &chat)
				if chat.SessionID == "" || chat.SessionID == sid {
					t.Errorf("newChat = %q, want a new session", chat.SessionID)
				}
			}
			if r := c.await(res, errc); r.StopReason != "cancelled" || r.TaskID != row["taskId"] || r.SessionID != sid {
				t.Errorf("result = %+v, want the task cancelled", r)
			}
		})
	}
}

func TestSessionsListEveryField(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	e.model.Script(modeltest.Turn{Text: "hello back"})
	var r runResult
	c.mustCall("agent/run", map[string]string{"prompt": "say hello\nplease"}, &r)
	var res struct{ Sessions []map[string]any }
	c.mustCall("agent/sessions", map[string]any{}, &res)
	if len(res.Sessions) != 1 {
		t.Fatalf("sessions = %v, want 1", res.Sessions)
	}
	s := res.Sessions[0]
	if s["sessionId"] != r.SessionID || s["turns"] != float64(1) {
		t.Errorf("session = %v, want %s with 1 turn", s, r.SessionID)
	}
	if title, _ := s["title"].(string); !strings.Contains(title, "say hello") {
		t.Errorf("title = %v, want the first prompt", s["title"])
	}
	if _, err := time.Parse(time.RFC3339, s["updatedAt"].(string)); err != nil {
		t.Errorf("updatedAt %v: %v", s["updatedAt"], err)
	}
}

func TestRunResultSaysWhyATurnFailed(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, true, false))
	e.model.Script(modeltest.Turn{Status: 401})
	var raw map[string]any
	c.mustCall("agent/run", map[string]string{"prompt": "hi"}, &raw)
	if raw["stopReason"] != "error" || raw["error"] == nil || raw["error"] == "" {
		t.Errorf("result = %v, want stopReason error with the error text", raw)
	}
	// The done event says the same, under the same name.
	evs := checkEvents(t, c)
	if done := evs[len(evs)-1]; done["type"] != "done" || done["stopReason"] != "error" || done["error"] != raw["error"] {
		t.Errorf("done event = %v, want stopReason error and the result's error %q", done, raw["error"])
	}
	for _, k := range []string{"taskId", "sessionId", "stopReason", "text"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("result %v lacks %q", raw, k)
		}
	}
}

func TestBadParamsSayWhatIsExpected(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	tests := []struct {
		method string
		params any
		want   string // in the message: what was expected
	}{
		{"agent/run", map[string]any{"prompt": 42}, `"prompt"`},
		{"agent/run", map[string]any{}, "agent:"},
		{"agent/cancel", map[string]any{}, "taskId"},
		{"agent/newChat", map[string]any{"sessionId": []int{1}}, "sessionId"},
		{"agent/resolveApproval", map[string]any{"optionId": "allow_once"}, "approvalId"},
		{"agent/mcp/trust", map[string]any{}, "server"},
		{"agent/mcp/revoke", map[string]any{}, "all"},
		{"agent/mcp/restart", map[string]any{"server": 1}, "server"},
		{"workspace/executeCommand", map[string]any{"command": "agentls.cancel", "arguments": []any{42}}, "taskId"},
		{"workspace/executeCommand", map[string]any{"command": "agentls.mcp.trust", "arguments": []any{}}, "server"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.want, func(t *testing.T) {
			err := c.call(tt.method, tt.params, nil)
			w, ok := err.(*jsonrpc2.Error)
			if !ok || w.Code != jsonrpc2.InvalidParams || !strings.Contains(w.Message, tt.want) || !strings.HasPrefix(w.Message, "agentls: ") {
				t.Errorf("%s %v: err %v, want InvalidParams from agentls naming %s", tt.method, tt.params, err, tt.want)
			}
		})
	}
}
