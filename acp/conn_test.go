package acp

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"testing"
	"time"
)

// A peer that leaves out a newline puts two messages on one line. Both are
// answered, by id, and a line of garbage after a message gets one parse
// error while the message before it is answered. Before, the line got one
// parse error with id null and neither request was ever answered, so the
// editor waited forever for its initialize.
func TestTwoMessagesOnOneLineAreBothAnswered(t *testing.T) {
	w := newWorld(t, "")
	cmd := exec.Command(w.bin, "acp")
	for k, v := range w.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+
		`{"jsonrpc":"2.0","id":2,"method":"no/such_method","params":{}}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"no/such_method","params":{}} and then garbage`+"\n")
	replies := map[string]message{}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	timeout := time.After(30 * time.Second)
	for len(replies) < 4 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("agentls acp ended; replies so far %+v", replies)
			}
			var m message
			if err := json.Unmarshal(l, &m); err != nil {
				t.Fatalf("agentls sent a line that is not JSON: %q", l)
			}
			if m.Method == "" {
				replies[string(m.ID)] = m
			}
		case <-timeout:
			t.Fatalf("gave up waiting for four replies; got %+v", replies)
		}
	}
	if r := replies["1"]; r.Error != nil || len(r.Result) == 0 {
		t.Errorf("initialize answered %+v, want its result", r)
	}
	for _, id := range []string{"2", "3"} {
		if r := replies[id]; r.Error == nil || r.Error.Code != codeMethodNotFound {
			t.Errorf("request %s answered %+v, want method not found", id, r)
		}
	}
	if r := replies["null"]; r.Error == nil || r.Error.Code != codeParseError {
		t.Errorf("the garbage got %+v, want one parse error", r)
	}
}
