package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestCancelRequestMatchesIDsAsSent speaks raw frames so the request ids are
// exactly what an editor sends: a string id and a number id, each cancelled
// by a $/cancelRequest that spells it the same way.
func TestCancelRequestMatchesIDsAsSent(t *testing.T) {
	for _, id := range []jsonrpc2.ID{jsonrpc2.NewStringID("run-1"), jsonrpc2.NewNumberID(41)} {
		t.Run(fmt.Sprintf("%v", id), func(t *testing.T) {
			e := newEnv(t, "")
			e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo never"}`}}})
			srvEnd, cliEnd := net.Pipe()
			s := New(Options{Version: "test", UserConfig: e.config, StateDir: e.state, Logf: t.Logf})
			code := make(chan int, 1)
			go func() { code <- s.Serve(context.Background(), srvEnd) }()
			defer func() {
				cliEnd.Close()
				<-code
			}()
			stream := jsonrpc2.NewStream(cliEnd)
			ctx := context.Background()
			send := func(m jsonrpc2.Message) {
				if _, err := stream.Write(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			call := func(id jsonrpc2.ID, method string, params any) {
				c, err := jsonrpc2.NewCall(id, method, params)
				if err != nil {
					t.Fatal(err)
				}
				send(c)
			}
			call(jsonrpc2.NewNumberID(1), "initialize", map[string]any{"rootUri": pathToURI(e.root),
				"capabilities": caps(true, false, false)})
			// Read until the run's response, answering what must be answered.
			deadline := time.Now().Add(waitLimit)
			_ = cliEnd.SetReadDeadline(deadline)
			for {
				msg, _, err := stream.Read(ctx)
				if err != nil {
					t.Fatalf("reading: %v", err)
				}
				switch m := msg.(type) {
				case *jsonrpc2.Response:
					if m.ID() == jsonrpc2.NewNumberID(1) {
						n, _ := jsonrpc2.NewNotification("initialized", map[string]any{})
						send(n)
						call(id, "agent/run", map[string]string{"prompt": "run it"})
						continue
					}
					if m.ID() != id {
						continue
					}
					var r runResult
					if err := json.Unmarshal(m.Result(), &r); err != nil || r.StopReason != "cancelled" {
						t.Fatalf("agent/run answered %s (%v), want stopReason cancelled", m.Result(), m.Err())
					}
					return
				case *jsonrpc2.Call:
					switch m.Method() {
					case "window/workDoneProgress/create":
						r, _ := jsonrpc2.NewResponse(m.ID(), nil, nil)
						send(r)
					case "agent/requestApproval":
						// Leave the card open and cancel the run instead.
						raw, _ := (&id).MarshalJSON()
						n, _ := jsonrpc2.NewNotification("$/cancelRequest", map[string]json.RawMessage{"id": raw})
						send(n)
					}
				}
			}
		})
	}
}
