package agent

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// withSlowServer runs the fault server as "slow", answering its handshake
// only after delay, with the given startup_wait.
func withSlowServer(t *testing.T, delay, startupWait time.Duration) func(*Options) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	servers := withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "slow", Origin: config.User, Command: bin, Cwd: root,
			Args: []string{"-handshake-delay", delay.String(), "-marker", root}}}
	})
	return func(o *Options) {
		o.Config.MCP.StartupWait = startupWait
		servers(o)
	}
}

// schemaOf is the schema a request offered for tool name, decoded.
func schemaOf(t *testing.T, r modeltest.Request, name string) any {
	t.Helper()
	var b struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
			Function    struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatal(err)
	}
	for _, tl := range b.Tools {
		raw := tl.InputSchema
		if tl.Function.Name != "" {
			raw = tl.Function.Parameters
		}
		if tl.Name == name || tl.Function.Name == name {
			var v any
			json.Unmarshal(raw, &v)
			return v
		}
	}
	t.Fatalf("request offers no tool %q", name)
	return nil
}

func TestFirstTurnWaitsUpToStartupWaitAndPassesSchemasVerbatim(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			// A server still connecting when the task starts is waited for
			// (startup_wait is generous here), so the first turn has its tools.
			f := newFixture(t, format, withSlowServer(t, 500*time.Millisecond, time.Minute))
			f.model.Script(modeltest.Turn{Text: "done"})
			if res := f.run(t, RunRequest{Prompt: "hi"}, TaskIO{}); res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			req := f.model.Requests()[0]
			if !slices.Contains(req.ToolNames(), "slow__echo") {
				t.Fatalf("first turn offers %v, want slow__echo", req.ToolNames())
			}
			// The schema is the server's, untouched: the server validates.
			var want any
			for _, tl := range f.core.reg.Tools() {
				if tl.Name == "slow__echo" {
					json.Unmarshal(tl.InputSchema, &want)
				}
			}
			if got := schemaOf(t, req, "slow__echo"); want == nil || !reflect.DeepEqual(got, want) {
				t.Errorf("schema sent %v, server's %v", got, want)
			}
		})
	}
}

func TestToolsOfAServerThatConnectsMidTaskHotPlugIntoTheNextTurn(t *testing.T) {
	// startup_wait is tiny and the handshake slow: the first turn goes out
	// without the server; the approver holds turn 1's tool call until the
	// server is connected, so turn 2 must offer its tools.
	f := newFixture(t, "anthropic", withSlowServer(t, 3*time.Second, time.Millisecond))
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`}}},
		modeltest.Turn{Text: "done"},
	)
	holdUntilConnected := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
		f.core.reg.Wait(ctx)
		return "reject_once", nil
	})
	if res := f.run(t, RunRequest{Prompt: "write"}, TaskIO{Approver: holdUntilConnected}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if slices.Contains(reqs[0].ToolNames(), "slow__echo") {
		t.Fatalf("first turn already offers slow__echo: the handshake delay did not hold it back")
	}
	if !slices.Contains(reqs[1].ToolNames(), "slow__echo") {
		t.Errorf("second turn offers %v, want slow__echo hot-plugged", reqs[1].ToolNames())
	}
}
