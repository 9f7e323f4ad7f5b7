package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangLimit only ends a test that would otherwise hang; nothing is timed.
const hangLimit = 30 * time.Second

// protocols are the two the connection speaks: every test runs on both.
var protocols = []Protocol{LSP, ACP}

// peer is the other end of a Conn: it writes frames as an editor would and
// reads what the Conn writes with the protocol's own framing.
type peer struct {
	t      *testing.T
	p      Protocol
	conn   *Conn
	in     *io.PipeWriter // the Conn's input
	frames chan outMsg    // what the Conn wrote
	served chan error     // Serve's return, once the handlers are done
}

// outMsg is any message the Conn wrote.
type outMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

func startPeer(t *testing.T, p Protocol, request, notify Handler) *peer {
	t.Helper()
	if notify == nil {
		notify = func(context.Context, string, json.RawMessage) (any, error) { return nil, nil }
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	pr := &peer{t: t, p: p, in: inW, frames: make(chan outMsg, 64), served: make(chan error, 1)}
	pr.conn = New(inR, outW, p, t.Logf)
	go func() {
		err := pr.conn.Serve(context.Background(), request, notify)
		pr.conn.Wait()
		outW.Close()
		pr.served <- err
	}()
	go func() {
		defer close(pr.frames)
		fr := p.rules().framing.reader(outR)
		for {
			b, err := fr.next()
			if err != nil {
				return
			}
			var m outMsg
			if err := json.Unmarshal(b, &m); err != nil {
				t.Errorf("the connection wrote a message that is not JSON: %q", b)
				continue
			}
			pr.frames <- m
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		for range pr.frames {
		}
		<-pr.served
	})
	return pr
}

// send writes body as one framed message.
func (pr *peer) send(body string) {
	pr.t.Helper()
	pr.write(string(pr.p.rules().framing.frame([]byte(body))))
}

// write writes raw bytes to the Conn's input.
func (pr *peer) write(s string) {
	pr.t.Helper()
	if _, err := io.WriteString(pr.in, s); err != nil {
		pr.t.Fatalf("writing to the connection: %v", err)
	}
}

// next returns the next message the Conn wrote that match accepts.
func (pr *peer) next(what string, match func(outMsg) bool) outMsg {
	pr.t.Helper()
	timeout := time.After(hangLimit)
	for {
		select {
		case m, ok := <-pr.frames:
			if !ok {
				pr.t.Fatalf("the connection ended before %s", what)
			}
			if match(m) {
				return m
			}
		case <-timeout:
			pr.t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// reply returns the Conn's reply to the request with id.
func (pr *peer) reply(id string) outMsg {
	pr.t.Helper()
	return pr.next("the reply to "+id, func(m outMsg) bool { return m.Method == "" && string(m.ID) == id })
}

// call returns the Conn's next request to the peer of method.
func (pr *peer) call(method string) outMsg {
	pr.t.Helper()
	return pr.next("a "+method+" call", func(m outMsg) bool { return m.Method == method && len(m.ID) > 0 })
}

// cancel is the protocol's cancel notification for id.
func (pr *peer) cancel(id string) string {
	r := pr.p.rules()
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{%q:%s}}`, r.cancel, r.cancelID, id)
}

// echo answers "ping" with "pong" and everything else with method not found.
func echo(_ context.Context, method string, _ json.RawMessage) (any, error) {
	if method == "ping" {
		return "pong", nil
	}
	return nil, Errorf(MethodNotFound, "agentls does not implement %q", method)
}

// A well-framed message that is not valid JSON-RPC gets the error reply
// JSON-RPC 2.0 requires, and the connection goes on: the next request is
// answered. Before, each of these ended the LSP server silently with exit
// code 0, and over ACP one was never answered.
func TestBadMessagesAreAnsweredAndTheConnectionGoesOn(t *testing.T) {
	tests := []struct {
		name, body string
		code       int64
		id         string
	}{
		{"a torn JSON body", `{"jsonrpc":`, ParseError, "null"},
		{"a body that is not JSON", `hello, agentls`, ParseError, "null"},
		{"a batch array", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, InvalidRequest, "null"},
		{"a numeric method", `{"jsonrpc":"2.0","id":5,"method":42}`, InvalidRequest, "5"},
		{"a wrong jsonrpc version", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, InvalidRequest, "8"},
		{"an empty method with a string id", `{"jsonrpc":"2.0","id":"r6","method":""}`, InvalidRequest, `"r6"`},
		{"no method and no result", `{"jsonrpc":"2.0","id":7}`, InvalidRequest, "7"},
	}
	for _, p := range protocols {
		for _, tt := range tests {
			t.Run(p.String()+"/"+tt.name, func(t *testing.T) {
				pr := startPeer(t, p, echo, nil)
				pr.send(tt.body)
				r := pr.next("the error reply", func(m outMsg) bool { return m.Error != nil })
				if r.Error.Code != tt.code || string(r.ID) != tt.id || !strings.HasPrefix(r.Error.Message, "agentls: ") {
					t.Errorf("reply = code %d id %s (%s), want code %d id %s from agentls", r.Error.Code, r.ID, r.Error.Message, tt.code, tt.id)
				}
				pr.send(`{"jsonrpc":"2.0","id":100,"method":"ping"}`)
				if next := pr.reply("100"); next.Error != nil || string(next.Result) != `"pong"` {
					t.Errorf("the next request got %s %+v, want pong", next.Result, next.Error)
				}
			})
		}
	}
}

// A frame that cannot be delimited ends Serve with the *FramingError, after
// the messages before it were answered.
func TestServeEndsWithAFramingError(t *testing.T) {
	for _, tt := range []struct {
		p     Protocol
		bytes string
	}{
		{LSP, "Content-Length: lots\r\n\r\n{}"},
		{LSP, "Content-Length: 2147483647\r\n\r\n{}"},
	} {
		t.Run(tt.p.String(), func(t *testing.T) {
			pr := startPeer(t, tt.p, echo, nil)
			pr.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			pr.write(tt.bytes)
			if r := pr.reply("1"); string(r.Result) != `"pong"` {
				t.Errorf("the request before the bad frame got %s %+v", r.Result, r.Error)
			}
			var fe *FramingError
			if err := <-pr.served; !errors.As(err, &fe) {
				t.Errorf("Serve returned %v, want a *FramingError", err)
			}
			pr.served <- nil // for the cleanup
		})
	}
}

// A request waiting for the peer (agent/run asking an approval) holds up
// nothing: a notification and another request sent meanwhile are handled,
// and the waiting request finishes with the peer's answer. With a handler
// chain that runs one request at a time this deadlocked.
func TestARequestWaitingOnThePeerHoldsUpNothing(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.String(), func(t *testing.T) {
			var mu sync.Mutex
			var notes []string
			var pr *peer
			pr = startPeer(t, p, func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				switch method {
				case "ask":
					var answer string
					if err := pr.conn.Call(ctx, "question", map[string]string{"q": "may I?"}, &answer); err != nil {
						return nil, err
					}
					return "the peer said " + answer, nil
				case "notes":
					mu.Lock()
					defer mu.Unlock()
					return notes, nil
				}
				return echo(ctx, method, params)
			}, func(_ context.Context, method string, params json.RawMessage) (any, error) {
				mu.Lock()
				defer mu.Unlock()
				notes = append(notes, string(params))
				return nil, nil
			})
			pr.send(`{"jsonrpc":"2.0","id":1,"method":"ask"}`)
			q := pr.call("question")
			if string(q.Params) != `{"q":"may I?"}` {
				t.Errorf("the question's params = %s", q.Params)
			}
			pr.send(`{"jsonrpc":"2.0","method":"note","params":["didChange"]}`)
			pr.send(`{"jsonrpc":"2.0","id":2,"method":"notes"}`)
			if r := pr.reply("2"); string(r.Result) != `["[\"didChange\"]"]` {
				t.Errorf("a request during the wait got %s %+v, want the notification seen", r.Result, r.Error)
			}
			pr.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"yes"}`, q.ID))
			if r := pr.reply("1"); string(r.Result) != `"the peer said yes"` {
				t.Errorf("the waiting request got %s %+v", r.Result, r.Error)
			}
		})
	}
}

// Notifications are handled in order, each before the next message is read.
func TestNotificationsAreHandledInOrder(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.String(), func(t *testing.T) {
			var got []string // only the read loop touches it until the request
			pr := startPeer(t, p, func(context.Context, string, json.RawMessage) (any, error) {
				return got, nil
			}, func(_ context.Context, method string, _ json.RawMessage) (any, error) {
				got = append(got, method)
				return nil, nil
			})
			var want []string
			for i := range 20 {
				m := fmt.Sprintf("n%d", i)
				want = append(want, m)
				pr.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, m))
			}
			pr.send(`{"jsonrpc":"2.0","id":1,"method":"list"}`)
			wantJSON, _ := json.Marshal(want)
			if r := pr.reply("1"); string(r.Result) != string(wantJSON) {
				t.Errorf("notifications handled = %s, want %s", r.Result, wantJSON)
			}
		})
	}
}

// Two requests in flight with the same id: the second finishing does not
// take the first one's cancel with it, and the protocol's cancel for the
// id, however spelled, still cancels the first (an agent/run waiting on an
// approval), which is answered RequestCancelled.
func TestCancelReachesARequestWhoseIDWasReused(t *testing.T) {
	for _, p := range protocols {
		for _, ids := range []struct{ id, cancelAs string }{{"7", "7"}, {"7", "7.0"}, {`"run-1"`, `"run-1"`}} {
			t.Run(p.String()+"/"+ids.id+" cancelled as "+ids.cancelAs, func(t *testing.T) {
				started := make(chan struct{}, 1)
				pr := startPeer(t, p, func(ctx context.Context, method string, params json.RawMessage) (any, error) {
					if method == "wait" {
						started <- struct{}{}
						<-ctx.Done()
						return nil, ctx.Err()
					}
					return echo(ctx, method, params)
				}, nil)
				pr.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"wait"}`, ids.id))
				<-started
				pr.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping"}`, ids.id))
				if r := pr.reply(ids.id); string(r.Result) != `"pong"` {
					t.Fatalf("the request with the reused id got %s %+v", r.Result, r.Error)
				}
				pr.send(pr.cancel(ids.cancelAs))
				if r := pr.reply(ids.id); r.Error == nil || r.Error.Code != RequestCancelled {
					t.Errorf("the waiting request got %s %+v, want RequestCancelled", r.Result, r.Error)
				}
				pr.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
				if r := pr.reply("8"); r.Error != nil {
					t.Errorf("the next request: %+v", r.Error)
				}
			})
		}
	}
}

// A call to the peer given up (its request was cancelled) tells the peer
// with the protocol's cancel notification, naming the call's id.
func TestACallGivenUpTellsThePeer(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.String(), func(t *testing.T) {
			var pr *peer
			pr = startPeer(t, p, func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				if method == "ping" {
					return echo(ctx, method, params)
				}
				return nil, pr.conn.Call(ctx, "question", nil, nil)
			}, nil)
			pr.send(`{"jsonrpc":"2.0","id":1,"method":"ask"}`)
			q := pr.call("question")
			pr.send(pr.cancel("1"))
			r := pr.p.rules()
			c := pr.next("the cancel of the question", func(m outMsg) bool { return m.Method == r.cancel })
			if want := fmt.Sprintf(`{%q:%s}`, r.cancelID, q.ID); string(c.Params) != want || c.ID != nil {
				t.Errorf("cancel notification = id %s params %s, want params %s and no id", c.ID, c.Params, want)
			}
			if reply := pr.reply("1"); reply.Error == nil || reply.Error.Code != RequestCancelled {
				t.Errorf("the cancelled request got %s %+v, want RequestCancelled", reply.Result, reply.Error)
			}
			// The peer's late answer reaches nobody and harms nothing.
			pr.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":true}`, q.ID))
			pr.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			if reply := pr.reply("2"); string(reply.Result) != `"pong"` {
				t.Errorf("the next request got %s %+v", reply.Result, reply.Error)
			}
		})
	}
}

// A call waiting when the peer closes the connection's input returns at
// once (an approval must not block forever after the editor quit), and the
// reply still owed is written.
func TestACallEndsWhenTheInputEnds(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.String(), func(t *testing.T) {
			var pr *peer
			pr = startPeer(t, p, func(_ context.Context, _ string, _ json.RawMessage) (any, error) {
				// A context that never ends: only the connection's end stops this.
				return nil, pr.conn.Call(context.Background(), "question", nil, nil)
			}, nil)
			pr.send(`{"jsonrpc":"2.0","id":1,"method":"ask"}`)
			pr.call("question")
			pr.in.Close()
			if r := pr.reply("1"); r.Error == nil || !strings.Contains(r.Error.Message, "question: the editor closed the connection") {
				t.Errorf("the request got %s %+v, want the call's failure", r.Result, r.Error)
			}
			if err := pr.conn.Call(context.Background(), "late", nil, nil); err == nil {
				t.Error("a call after the end was sent")
			}
		})
	}
}

// What the peer answers a call is what Call returns: the result decoded,
// or the peer's error with its code.
func TestACallReturnsThePeersAnswer(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.String(), func(t *testing.T) {
			type answer struct {
				OK  bool   `json:"ok"`
				Err string `json:"err"`
			}
			var pr *peer
			pr = startPeer(t, p, func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
				var a answer
				if err := pr.conn.Call(ctx, "question", nil, &a); err != nil {
					var e *Error
					if errors.As(err, &e) {
						return answer{Err: fmt.Sprintf("code %d: %s", e.Code, e.Message)}, nil
					}
					return answer{Err: err.Error()}, nil
				}
				return a, nil
			}, nil)
			for i, tt := range []struct{ answer, want string }{
				{`"result":{"ok":true}`, `{"ok":true,"err":""}`},
				{`"result":null`, `{"ok":false,"err":""}`},
				{`"error":{"code":-32601,"message":"no such method"}`, `{"ok":false,"err":"code -32601: no such method"}`},
				{`"result":"not an object"`, `{"ok":false,"err":"question: unexpected result`},
			} {
				id := fmt.Sprint(i + 1)
				pr.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ask"}`)
				q := pr.call("question")
				pr.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,%s}`, q.ID, tt.answer))
				if r := pr.reply(id); !strings.HasPrefix(string(r.Result), tt.want) {
					t.Errorf("answer %s: got %s %+v, want %s", tt.answer, r.Result, r.Error, tt.want)
				}
			}
		})
	}
}

// Every error reply has a code: an *Error keeps its own, a cancelled
// request is RequestCancelled, anything else (a panic, a result that does
// not encode) InternalError; and the connection goes on.
func TestEveryErrorReplyHasACode(t *testing.T) {
	tests := []struct {
		name   string
		result any
		err    error
		panics bool
		code   int64
		says   string
	}{
		{"an *Error", nil, Errorf(InvalidParams, "agentls: bad params"), false, InvalidParams, "agentls: bad params"},
		{"a wrapped *Error", nil, fmt.Errorf("wrapped: %w", Errorf(ResourceNotFound, "no session")), false, ResourceNotFound, "no session"},
		{"a cancelled context", nil, fmt.Errorf("agent/run: %w", context.Canceled), false, RequestCancelled, "context canceled"},
		{"a plain error", nil, errors.New("disk full"), false, InternalError, "disk full"},
		{"a panic", nil, nil, true, InternalError, "agentls: internal error in m: boom"},
		{"a result that does not encode", make(chan int), nil, false, InternalError, "encoding the result of m"},
	}
	for _, p := range protocols {
		for _, tt := range tests {
			t.Run(p.String()+"/"+tt.name, func(t *testing.T) {
				pr := startPeer(t, p, func(ctx context.Context, method string, params json.RawMessage) (any, error) {
					if method == "ping" {
						return echo(ctx, method, params)
					}
					if tt.panics {
						panic("boom")
					}
					return tt.result, tt.err
				}, nil)
				pr.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
				if r := pr.reply("1"); r.Error == nil || r.Error.Code != tt.code || !strings.Contains(r.Error.Message, tt.says) {
					t.Errorf("reply %s %+v, want code %d saying %q", r.Result, r.Error, tt.code, tt.says)
				}
				pr.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
				if r := pr.reply("2"); string(r.Result) != `"pong"` {
					t.Errorf("the next request got %s %+v", r.Result, r.Error)
				}
			})
		}
	}
}

// A nil result is the JSON-RPC result null, not a missing member.
func TestANilResultIsNull(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.String(), func(t *testing.T) {
			pr := startPeer(t, p, func(context.Context, string, json.RawMessage) (any, error) { return nil, nil }, nil)
			pr.send(`{"jsonrpc":"2.0","id":"a","method":"shutdown"}`)
			if r := pr.reply(`"a"`); string(r.Result) != "null" || r.Error != nil {
				t.Errorf("reply %s %+v, want result null", r.Result, r.Error)
			}
		})
	}
}
