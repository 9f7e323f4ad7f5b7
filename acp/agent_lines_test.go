package acp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/jsonrpc"
)

// rawMessage is any line agentls acp writes.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// rawACP is a real agentls acp spoken to line by line.
type rawACP struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan rawMessage
}

func startRawACP(t *testing.T, w *world) *rawACP {
	t.Helper()
	cmd := exec.Command(w.bin, "acp")
	for k, v := range w.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawACP{t: t, stdin: stdin, lines: make(chan rawMessage, 64)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m rawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("agentls sent a line that is not JSON: %q", sc.Bytes())
				continue
			}
			r.lines <- m
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		for range r.lines {
		}
		<-read
		cmd.Wait()
	})
	return r
}

func (r *rawACP) write(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, s); err != nil {
		r.t.Fatal(err)
	}
}

// next returns the next line that match accepts.
func (r *rawACP) next(what string, match func(rawMessage) bool) rawMessage {
	r.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("agentls acp ended before %s", what)
			}
			if match(m) {
				return m
			}
		case <-timeout:
			r.t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func (r *rawACP) reply(id string) rawMessage {
	r.t.Helper()
	return r.next("the reply to "+id, func(m rawMessage) bool { return m.Method == "" && string(m.ID) == id })
}

// A peer that leaves out a newline puts two messages on one line. Both are
// answered, by id, and a line of garbage after a message gets one parse
// error while the message before it is answered. Before, the line got one
// parse error with id null and neither request was ever answered, so the
// editor waited forever for its initialize.
func TestTwoMessagesOnOneLineAreBothAnswered(t *testing.T) {
	r := startRawACP(t, newWorld(t, ""))
	r.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` +
		`{"jsonrpc":"2.0","id":2,"method":"no/such_method","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"no/such_method","params":{}} and then garbage` + "\n")
	replies := map[string]rawMessage{}
	for len(replies) < 4 {
		m := r.next("four replies", func(m rawMessage) bool { return m.Method == "" })
		replies[string(m.ID)] = m
	}
	if r := replies["1"]; r.Error != nil || len(r.Result) == 0 {
		t.Errorf("initialize answered %+v, want its result", r)
	}
	for _, id := range []string{"2", "3"} {
		if r := replies[id]; r.Error == nil || r.Error.Code != jsonrpc.MethodNotFound {
			t.Errorf("request %s answered %+v, want method not found", id, r)
		}
	}
	if r := replies["null"]; r.Error == nil || r.Error.Code != jsonrpc.ParseError {
		t.Errorf("the garbage got %+v, want one parse error", r)
	}
}

// $/cancel_request for a session/prompt waiting on a permission ends the
// turn: agentls withdraws its own question with $/cancel_request and the
// prompt is answered stopReason cancelled. Before, agentls ignored it and
// the turn ran on, waiting for an answer the editor no longer meant to give.
func TestCancelRequestEndsAPromptWaitingOnAPermission(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo never"}`}}})
	r := startRawACP(t, w)
	r.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	r.reply("1")
	r.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, w.root) + "\n")
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if m := r.reply("2"); m.Error != nil || json.Unmarshal(m.Result, &created) != nil {
		t.Fatalf("session/new answered %s %+v", m.Result, m.Error)
	}
	r.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"run it"}]}}`, created.SessionID) + "\n")
	asked := r.next("session/request_permission", func(m rawMessage) bool { return m.Method == methodRequestPermission })
	r.write(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}}` + "\n")
	// The two come in either order: the turn may end before the
	// connection has written the withdrawal.
	var withdrawn, answered *rawMessage
	for withdrawn == nil || answered == nil {
		m := r.next("agentls's $/cancel_request and the prompt's answer", func(m rawMessage) bool {
			return m.Method == methodCancelRequest || (m.Method == "" && string(m.ID) == `"p1"`)
		})
		if m.Method == methodCancelRequest {
			withdrawn = &m
		} else {
			answered = &m
		}
	}
	if want := fmt.Sprintf(`{"requestId":%s}`, asked.ID); string(withdrawn.Params) != want {
		t.Errorf("agentls cancelled %s, want %s (its permission request)", withdrawn.Params, want)
	}
	if answered.Error != nil || !strings.Contains(string(answered.Result), `"stopReason":"cancelled"`) {
		t.Errorf("session/prompt answered %s %+v, want stopReason cancelled", answered.Result, answered.Error)
	}
	if n := len(w.model.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1 (the command never ran)", n)
	}
}
