package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// runEnv is a temp home for one `agentls run`: a workspace folder, a user
// config pointing at the fake model and the real server-filesystem, and a
// private state directory.
type runEnv struct {
	bin, ws, state, config string
	model                  *modeltest.Server
}

func newRunEnv(t *testing.T, format, policy string) *runEnv {
	t.Helper()
	e := &runEnv{bin: testenv.Agentls(t), model: modeltest.New(t)}
	fsServer := testenv.NodeBin(t, "mcp-server-filesystem")
	tmp := t.TempDir()
	tmp, _ = filepath.EvalSymlinks(tmp)
	e.ws, e.state, e.config = filepath.Join(tmp, "ws"), filepath.Join(tmp, "state"), filepath.Join(tmp, "config.toml")
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	base := e.model.URL()
	if format == "openai" {
		base += "/v1"
	}
	cfg := fmt.Sprintf("[model]\nprovider = %q\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n", format, base)
	// The first turn waits for the server: npx under load can take more
	// than the default 5 s, and these tests are about the call, not the wait.
	cfg += "[mcp]\nstartup_wait = \"90s\"\n\n"
	cfg += fmt.Sprintf("[mcp.servers.fs]\ncommand = %q\nargs = [%q]\n\n", fsServer, e.ws)
	if policy != "" {
		cfg += "[mcp.policy]\n" + policy + "\n"
	}
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testenv.WaitNoProcesses(t, e.ws, 10*time.Second) })
	return e
}

func (e *runEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append([]string{"run"}, args...)...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+e.config, "XDG_STATE_HOME="+e.state, "AGENTLS_TEST_KEY=test")
	return cmd // Stdin nil: /dev/null, which is not a terminal
}

// run runs `agentls run` to its end and returns its exit code and output.
func (e *runEnv) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := e.command(args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("agentls run: %v", err)
	}
	return 0, out.String(), errb.String()
}

func (e *runEnv) readTurn() modeltest.Turn {
	return modeltest.Turn{Text: "Let me read it.", ToolCalls: []modeltest.ToolCall{
		{ID: "call_fs", Name: "fs__read_text_file", Input: fmt.Sprintf(`{"path":%q}`, filepath.Join(e.ws, "hello.txt"))},
	}}
}

func TestRunMCPCallAllowListedVersusDeniedWithoutTerminal(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format+"/allow-listed call completes with the real result", func(t *testing.T) {
			e := newRunEnv(t, format, `"fs__read_text_file" = "allow"`)
			os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello from server-filesystem\n"), 0o644)
			e.model.Script(e.readTurn(), modeltest.Turn{Text: "The file says hello."})
			code, stdout, stderr := e.run(t, "what does hello.txt say?")
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "The file says hello.") {
				t.Errorf("stdout = %q, want the model's final text", stdout)
			}
			reqs := e.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			trs := reqs[1].ToolResults()
			if len(trs) != 1 || trs[0].ToolUseID != "call_fs" || trs[0].IsError || !strings.Contains(trs[0].Content, "hello from server-filesystem") {
				t.Fatalf("second request's tool results = %+v, want the server's real result", trs)
			}
		})
		// Nobody said no: the model is told nobody could be asked, and the
		// run exits 5 so a script sees the task was not done (it exited 0,
		// the model told "denied by the user").
		t.Run(format+"/call without allow entry and without terminal is refused, the model told nobody could be asked, exit 5", func(t *testing.T) {
			e := newRunEnv(t, format, "")
			os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("must not be read\n"), 0o644)
			e.model.Script(e.readTurn(), modeltest.Turn{Text: "It needs approval."})
			code, stdout, stderr := e.run(t, "read hello.txt")
			if code != exitUnasked {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitUnasked, stdout, stderr)
			}
			if !strings.Contains(stderr, "not a terminal: nobody could be asked") || !strings.Contains(stderr, "fs · read_text_file") ||
				!strings.Contains(stderr, "1 approval(s) were needed and nobody could be asked") {
				t.Errorf("stderr does not say the approval could not be asked for lack of a terminal:\n%s", stderr)
			}
			trs := e.model.Requests()[1].ToolResults()
			// Both formats carry the message as written (never "Error: ERROR: ...").
			if len(trs) != 1 || trs[0].Content != agent.NobodyAskedMessage || !trs[0].IsError {
				t.Fatalf("tool results = %+v, want %q", trs, agent.NobodyAskedMessage)
			}
		})
	}
}

func TestRunJSONPrintsTheEventStream(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	e.model.Script(modeltest.Turn{Text: "just text"})
	code, stdout, stderr := e.run(t, "--json", "say something")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var evs []wire.Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev wire.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	var streamed strings.Builder
	for _, ev := range evs {
		if ev.Type == "text" {
			streamed.WriteString(ev.Delta)
		}
	}
	if streamed.String() != "just text" || evs[len(evs)-1].Type != "done" || evs[len(evs)-1].Text != "just text" || evs[len(evs)-1].StopReason != "end_turn" {
		t.Fatalf("events = %+v", evs)
	}
	for i, ev := range evs {
		if ev.Seq != i+1 || ev.TaskID != "t1" {
			t.Errorf("event %d: seq %d task %q", i, ev.Seq, ev.TaskID)
		}
	}
}

// TestRunJSONEventsHaveTheLSPShape checks that each line of `run --json`
// is the agent/event the LSP front sends (docs/protocol.md section 3):
// the common fields and every field of its type, zero or not (a read that
// succeeds still says "isError": false; a text turn's done says "usage").
func TestRunJSONEventsHaveTheLSPShape(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	if err := os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "read_file", Input: `{"path":"a.txt"}`}}},
		modeltest.Turn{Text: "read it"},
	)
	code, stdout, stderr := e.run(t, "--json", "read a.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fields := map[string][]string{
		"text":        {"delta"},
		"tool_call":   {"toolCallId", "tool", "title", "arguments", "status"},
		"tool_result": {"toolCallId", "status", "output", "isError"},
		"approval":    {"approvalId", "state"},
		"status":      {"message"},
		"done":        {"stopReason", "text", "usage"},
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		var typ string
		json.Unmarshal(ev["type"], &typ)
		want, known := fields[typ]
		if !known {
			t.Fatalf("event of unknown type %q: %s", typ, sc.Text())
		}
		seen[typ] = true
		for _, k := range append([]string{"taskId", "sessionId", "seq", "type"}, want...) {
			if _, ok := ev[k]; !ok {
				t.Errorf("%s event %s lacks %q", typ, sc.Text(), k)
			}
		}
		if typ == "tool_result" && string(ev["isError"]) != "false" {
			t.Errorf("the read failed: %s", sc.Text())
		}
	}
	for _, typ := range []string{"text", "tool_call", "tool_result", "done"} {
		if !seen[typ] {
			t.Errorf("no %s event in\n%s", typ, stdout)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Run("model error exits 1 with the message on stderr", func(t *testing.T) {
		e := newRunEnv(t, "openai", "")
		e.model.Script(modeltest.Turn{Status: 401, ErrorType: "authentication_error"})
		code, _, stderr := e.run(t, "hi")
		if code != 1 || !strings.Contains(stderr, "agentls run: ") {
			t.Fatalf("exit %d, stderr %q; want 1 and a message", code, stderr)
		}
	})
	t.Run("no prompt is a usage error", func(t *testing.T) {
		e := newRunEnv(t, "openai", "")
		if code, _, stderr := e.run(t); code != 2 || !strings.Contains(stderr, "no prompt") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("no model configured exits 1 and says how to configure one", func(t *testing.T) {
		if c, err := net.Dial("tcp", "127.0.0.1:11434"); err == nil {
			c.Close()
			t.Skip("something listens on Ollama's port, so a model is found")
		}
		// A configured MCP server is never started for a task that cannot
		// run: the model is resolved first.
		home := t.TempDir()
		started := filepath.Join(home, "server-started")
		cfg := filepath.Join(home, "config.toml")
		toml := fmt.Sprintf("[mcp.servers.s]\ncommand = \"sh\"\nargs = [\"-c\", \"touch '%s'; exec sleep 60\"]\n", started)
		if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(testenv.Agentls(t), "run", "--config", cfg, "hello")
		// A project folder under home (home itself is refused as a workspace).
		cmd.Dir = filepath.Join(home, "proj")
		if err := os.Mkdir(cmd.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + filepath.Join(home, "state")}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.HasPrefix(stderr.String(), "agentls run: no model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY") {
			t.Fatalf("wait = %v, stderr %q; want exit 1 and the no-model message", err, stderr.String())
		}
		if _, err := os.Stat(started); err == nil {
			t.Errorf("the MCP server was started although no model is configured")
		}
		testenv.WaitNoProcesses(t, started, 10*time.Second)
	})
	t.Run("SIGINT cancels the task and exits 130", func(t *testing.T) {
		e := newRunEnv(t, "anthropic", "")
		e.model.Script(modeltest.Turn{Text: "streaming forever", Hang: true})
		cmd := e.command("hang")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first streamed bytes mean the task is running.
		if _, err := stdout.Read(make([]byte, 1)); err != nil {
			t.Fatalf("no output before the signal: %v (%s)", err, stderr.String())
		}
		cmd.Process.Signal(syscall.SIGINT)
		go func() { bufio.NewReader(stdout).WriteTo(new(bytes.Buffer)) }()
		err = cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 {
			t.Fatalf("wait = %v, want exit 130\nstderr: %s", err, stderr.String())
		}
	})
}

// promptWatch is the terminal's screen: it signals each time a card's
// question has been printed.
type promptWatch struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	asked chan struct{}
}

func (w *promptWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.HasSuffix(p, []byte("deny: ")) {
		w.asked <- struct{}{}
	}
	return len(p), nil
}

func (w *promptWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestTerminalApproverAnswers(t *testing.T) {
	card := wire.Approval{Kind: "mcp_call", Title: "Call fs · write_file?", Detail: "fs · write_file\n{\"path\": \"a\"}",
		Options: []wire.ApprovalOption{{OptionID: "allow_once", Kind: "allow_once"}, {OptionID: "allow_always", Name: "Always allow fs__write_file", Kind: "allow_always"}, {OptionID: "reject_once", Kind: "reject_once"}}}
	noAlways := card
	noAlways.Options = []wire.ApprovalOption{card.Options[0], card.Options[2]}
	never := card
	never.Options = append(slices.Clone(card.Options), wire.ApprovalOption{OptionID: "reject_always", Name: "Always deny in this workspace: never run `rm -rf build`", Kind: "reject_always"})
	tests := []struct {
		name    string
		card    wire.Approval
		answers []string // typed in turn, each after the card's question
		want    string
	}{
		{"y allows once", card, []string{"y"}, "allow_once"},
		{"yes allows once", card, []string{" YES "}, "allow_once"},
		{"a allows always where offered", card, []string{"a"}, "allow_always"},
		{"n denies", card, []string{"n"}, "reject_once"},
		{"an empty answer denies", card, []string{""}, "reject_once"},
		// A key the card does not list was a silent no: it asks again.
		{"a where always is not offered asks again", noAlways, []string{"a", "y"}, "allow_once"},
		{"anything else asks again", card, []string{"sure", "ok", "n"}, "reject_once"},
		{"d denies always where offered", never, []string{"d"}, "reject_always"},
		{"d where always deny is not offered asks again", card, []string{"d", "n"}, "reject_once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			screen := &promptWatch{asked: make(chan struct{}, 1)}
			ap := &terminalApprover{in: pr, out: screen}
			got := make(chan string, 1)
			go func() {
				opt, _ := ap.RequestApproval(context.Background(), tc.card)
				got <- opt
			}()
			for _, answer := range tc.answers {
				<-screen.asked
				io.WriteString(pw, answer+"\n")
			}
			if opt := <-got; opt != tc.want {
				t.Errorf("answers %q = %q, want %q", tc.answers, opt, tc.want)
			}
			out := screen.String()
			if !strings.Contains(out, tc.card.Title+"\n"+tc.card.Detail+"\n") {
				t.Errorf("the card was not shown literally:\n%s", out)
			}
			if hasDeny := strings.Contains(out, "[d] Always deny in this workspace"); hasDeny != (tc.card.Options[len(tc.card.Options)-1].Kind == "reject_always") {
				t.Errorf("the [d] key shown %v on a card with options %+v:\n%s", hasDeny, tc.card.Options, out)
			}
			if again := strings.Count(out, "is not one of the answers"); again != len(tc.answers)-1 {
				t.Errorf("asked again %d times, want %d:\n%s", again, len(tc.answers)-1, out)
			}
		})
	}
	t.Run("end of input denies", func(t *testing.T) {
		ap := &terminalApprover{in: strings.NewReader(""), out: io.Discard}
		// The second card finds the input already closed: it must deny at
		// once, not spin draining a closed channel.
		for i := range 2 {
			if opt, _ := ap.RequestApproval(context.Background(), card); opt != "reject_once" {
				t.Errorf("card %d at EOF = %q", i+1, opt)
			}
		}
	})
	t.Run("a cancelled context denies", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		ap := &terminalApprover{in: pr, out: io.Discard}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if opt, err := ap.RequestApproval(ctx, card); opt != "" || err == nil {
			t.Errorf("cancelled = %q, %v", opt, err)
		}
	})
}

func TestRunNeverStartsAnUnapprovedWorkspaceServer(t *testing.T) {
	e := newRunEnv(t, "openai", "")
	fsServer := testenv.NodeBin(t, "mcp-server-filesystem")
	marker := filepath.Join(e.ws, "repo-server-marker")
	os.MkdirAll(filepath.Join(e.ws, ".agentls"), 0o755)
	repoCfg := fmt.Sprintf("[mcp.servers.repofs]\ncommand = %q\nargs = [%q]\n", fsServer, marker)
	if err := os.WriteFile(filepath.Join(e.ws, ".agentls", "config.toml"), []byte(repoCfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "hello"})
	code, _, stderr := e.run(t, "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, `MCP server "repofs" from the workspace config is not started`) || !strings.Contains(stderr, "agentls mcp trust repofs") {
		t.Errorf("stderr does not explain the held server:\n%s", stderr)
	}
	names := strings.Join(e.model.Requests()[0].ToolNames(), ",")
	if strings.Contains(names, "repofs__") {
		t.Errorf("an unapproved workspace server's tools were offered: %s", names)
	}
	if left := testenv.ProcessesMatching(marker); len(left) > 0 {
		t.Errorf("the unapproved server was started: %v", left)
	}
}
