package bench

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// acpChild is a running `agentls acp` driven by a minimal ACP client:
// newline-delimited JSON-RPC, session/update counted, nothing asked.
type acpChild struct {
	b      *testing.B
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex
	nextID int
	wait   map[int]chan json.RawMessage
	done   chan struct{}
}

func startACP(b *testing.B, h home) *acpChild {
	b.Helper()
	cmd := exec.Command(testenv.Agentls(b), "acp")
	cmd.Dir = h.root
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+h.config, "XDG_STATE_HOME="+h.state, "AGENTLS_TEST_KEY=test")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start agentls acp: %v", err)
	}
	c := &acpChild{b: b, cmd: cmd, stdin: stdin, wait: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	go c.read(stdout)
	b.Cleanup(func() {
		stdin.Close()
		<-c.done
		cmd.Wait()
	})
	return c
}

func (c *acpChild) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || m.Method != "" {
			continue // session/update: the round trip waits for the response after them
		}
		c.mu.Lock()
		ch := c.wait[*m.ID]
		delete(c.wait, *m.ID)
		c.mu.Unlock()
		if ch != nil {
			if len(m.Error) > 0 {
				ch <- append(json.RawMessage(`{"error":`), append(m.Error, '}')...)
			} else {
				ch <- m.Result
			}
		}
	}
}

// call sends a request and returns its raw result.
func (c *acpChild) call(method string, params any) json.RawMessage {
	c.b.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan json.RawMessage, 1)
	c.wait[id] = ch
	c.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.stdin.Write(append(msg, '\n')); err != nil {
		c.b.Fatalf("%s: %v", method, err)
	}
	select {
	case res := <-ch:
		return res
	case <-time.After(waitLimit):
		c.b.Fatalf("%s: no answer in %s", method, waitLimit)
	}
	return nil
}

// toolTurns answers every model request of a round trip: a read-only tool
// call first, then text once the tool's result is in the request.
func toolTurns(req modeltest.Request) (modeltest.Turn, bool) {
	if strings.Contains(string(req.Body), `"role":"tool"`) {
		return modeltest.Turn{Text: "the folder has one file"}, true
	}
	return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "list_directory", Input: `{"path":"."}`}}}, true
}

// BenchmarkACPPromptVsLSPRun is figure 9: one task (a read-only tool call,
// then text; two model requests) as an ACP session/prompt round trip
// against the same task as an LSP agent/run round trip, each over stdio
// from a client in this process to its own agentls with its own fake
// model, interleaved. Each round starts a new conversation (ACP
// session/new, untimed; LSP agent/run without sessionId).
func BenchmarkACPPromptVsLSPRun(b *testing.B) {
	lspModel, acpModel := modeltest.New(b), modeltest.New(b)
	lspModel.Answer(toolTurns)
	acpModel.Answer(toolTurns)
	lh, ah := newHome(b, lspModel.URL(), ""), newHome(b, acpModel.URL(), "")
	for _, h := range []home{lh, ah} {
		if err := os.WriteFile(h.root+"/a.txt", []byte("a\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	lsp := startAgentls(b, lh, nil)
	lsp.initialize(lh.root, true)
	acp := startACP(b, ah)
	acp.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})

	viaACP := func() time.Duration {
		var s struct{ SessionID string }
		json.Unmarshal(acp.call("session/new", map[string]any{"cwd": ah.root, "mcpServers": []any{}}), &s)
		var res struct{ StopReason string }
		d := Timed(func() {
			raw := acp.call("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]string{"type": "text", "text": "what is here?"}}})
			json.Unmarshal(raw, &res)
		})
		if res.StopReason != "end_turn" {
			b.Fatalf("session/prompt ended %q", res.StopReason)
		}
		return d
	}
	viaLSP := func() time.Duration {
		var res struct{ StopReason, Error string }
		d := Timed(func() { lsp.call("agent/run", map[string]any{"prompt": "what is here?"}, &res) })
		if res.StopReason != "end_turn" {
			b.Fatalf("agent/run ended %+v", res)
		}
		return d
	}
	Pair(3, viaACP, viaLSP) // warm both
	b.Run("prompt", func(b *testing.B) {
		subj, base := Pair(b.N, viaACP, viaLSP)
		ReportDurations(b, "", subj, base)
	})
}
