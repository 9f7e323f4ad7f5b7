package tools

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/mcp/toolname"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// toolTest runs built-ins directly against a temp workspace. It is the
// loop's side of each call (Call): it records the cards asked and answers
// them all alike (deny), as the loop's gate would.
type toolTest struct {
	t       *testing.T
	dir     string
	ws      *testWorkspace
	env     *Env
	asks    []wire.Approval
	deny    bool
	allowed int // Gate calls that were allowed without asking
}

func newToolTest(t *testing.T) *toolTest {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tt := &toolTest{t: t, dir: dir, ws: &testWorkspace{folders: []string{dir}}}
	tt.env = &Env{Workspace: tt.ws, MaxBytes: 64 << 10}
	return tt
}

func (tt *toolTest) Gate(_ context.Context, d trust.Decision, card wire.Approval) (string, error) {
	switch d.Action {
	case trust.Deny:
		return "", &Denied{"ERROR: denied by policy: " + d.Reason}
	case trust.Allow:
		tt.allowed++
		return "", nil
	}
	tt.asks = append(tt.asks, card)
	if tt.deny {
		return "", &Denied{"ERROR: denied by the user"}
	}
	return string(wire.OptionAllowOnce), nil
}

func (tt *toolTest) Progress(string)  {}
func (tt *toolTest) ServerLog(string) {}
func (tt *toolTest) Elicit(context.Context, mcp.Elicitation) mcp.ElicitAnswer {
	return mcp.ElicitAnswer{Action: wire.ElicitDecline}
}

func (tt *toolTest) call(name, args string) (string, bool, string) {
	tt.t.Helper()
	b, ok := Builtin(name)
	if !ok {
		tt.t.Fatalf("no built-in %s", name)
	}
	o := Run(context.Background(), tt.env, b, b.Plan(tt.env, json.RawMessage(args)).Timeout, tt, json.RawMessage(args))
	return o.Text, o.IsError, string(o.Status)
}

func TestBuiltinNamesAreLegalAndSchemasAreObjects(t *testing.T) {
	want := []string{"edit_file", "find_files", "list_directory", "list_mcp_resources", "read_file", "read_mcp_resource", "run_command", "search_text", "search_tools", "write_file"}
	if got := BuiltinNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("BuiltinNames() = %v, want %v", got, want)
	}
	for _, b := range Builtins() {
		d := b.Def()
		var s struct {
			Type string `json:"type"`
		}
		if !toolname.Valid(d.Name) || json.Unmarshal(d.Schema, &s) != nil || s.Type != "object" || d.Description == "" {
			t.Errorf("tool %s: illegal name, bad schema or no description: %s", d.Name, d.Schema)
		}
	}
}

func TestReadFileNumbersLinesAndPrefersTheBuffer(t *testing.T) {
	tt := newToolTest(t)
	p := filepath.Join(tt.dir, "a.txt")
	writeFileT(t, p, "one\ntwo\nthree\n")
	out, isErr, _ := tt.call("read_file", `{"path":"a.txt","start_line":2,"end_line":3}`)
	if isErr || out != "     2\ttwo\n     3\tthree\n" {
		t.Fatalf("read_file = %q (error %v)", out, isErr)
	}
	tt.ws.buffers = map[string]string{p: "edited\n"}
	if out, _, _ := tt.call("read_file", `{"path":"a.txt"}`); !strings.Contains(out, "edited") {
		t.Errorf("read_file ignored the open buffer: %q", out)
	}
	writeFileT(t, filepath.Join(tt.dir, "bin"), "\x00\x01")
	if out, isErr, _ := tt.call("read_file", `{"path":"bin"}`); !isErr || !strings.Contains(out, "binary") {
		t.Errorf("binary file: %q", out)
	}
	if out, isErr, _ := tt.call("read_file", `{"path":"../../etc/passwd"}`); !isErr || !strings.Contains(out, "outside the workspace") {
		t.Errorf("read outside: %q", out)
	}
}

func TestListFindAndSearch(t *testing.T) {
	tt := newToolTest(t)
	writeFileT(t, filepath.Join(tt.dir, "cmd", "main.go"), "package main\n// TODO: fix\n")
	writeFileT(t, filepath.Join(tt.dir, "lib", "lib.go"), "package lib\n")
	writeFileT(t, filepath.Join(tt.dir, ".git", "config"), "TODO: inside git\n")
	writeFileT(t, filepath.Join(tt.dir, "README.md"), "TODO: docs\n")

	out, _, _ := tt.call("list_directory", `{}`)
	for _, want := range []string{"cmd/", "lib/", "README.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("list_directory = %q, lacks %q", out, want)
		}
	}
	out, _, _ = tt.call("find_files", `{"pattern":"*.go"}`)
	if out != "cmd/main.go\nlib/lib.go\n" {
		t.Errorf("find_files *.go = %q", out)
	}
	out, _, _ = tt.call("find_files", `{"pattern":"cmd/*.go"}`)
	if out != "cmd/main.go\n" {
		t.Errorf("find_files cmd/*.go = %q", out)
	}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO"}`)
	if !strings.Contains(out, "cmd/main.go:2: // TODO: fix") || !strings.Contains(out, "README.md:1:") || strings.Contains(out, "inside git") {
		t.Errorf("search_text = %q (want matches with path:line, .git skipped)", out)
	}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO","glob":"*.go"}`)
	if strings.Contains(out, "README") {
		t.Errorf("search_text glob *.go matched README: %q", out)
	}
	out, _, _ = tt.call("find_files", `{"pattern":"*.go","path":"cmd"}`)
	if out != "cmd/main.go\n" {
		t.Errorf("find_files under cmd = %q, want paths the model can pass back", out)
	}
	tt.ws.buffers = map[string]string{filepath.Join(tt.dir, "lib", "lib.go"): "package lib\n// TODO: unsaved\n"}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO","path":"lib"}`)
	if out != "lib/lib.go:2: // TODO: unsaved\n" {
		t.Errorf("search_text in a directory with an open buffer = %q", out)
	}
	out, _, _ = tt.call("search_text", `{"pattern":"TODO","path":"lib/lib.go"}`)
	if out != "lib/lib.go:2: // TODO: unsaved\n" {
		t.Errorf("search_text of one open file = %q", out)
	}
	if out, isErr, _ := tt.call("search_text", `{"pattern":"("}`); !isErr || !strings.Contains(out, "not a valid regular expression") {
		t.Errorf("bad regexp: %q", out)
	}
}

func TestWriteAndEditAskAndFallBackToDisk(t *testing.T) {
	tt := newToolTest(t)
	out, isErr, status := tt.call("write_file", `{"path":"sub/new.txt","content":"hello\n"}`)
	if isErr || status != "completed" {
		t.Fatalf("write_file = %q %s", out, status)
	}
	if b, _ := os.ReadFile(filepath.Join(tt.dir, "sub", "new.txt")); string(b) != "hello\n" {
		t.Errorf("disk = %q", b)
	}
	if len(tt.asks) != 1 || tt.asks[0].Kind != "write" || !strings.Contains(tt.asks[0].Detail, "+hello") {
		t.Errorf("asks = %+v", tt.asks)
	}
	out, isErr, _ = tt.call("edit_file", `{"path":"sub/new.txt","old_text":"hello","new_text":"bye"}`)
	if isErr {
		t.Fatalf("edit_file = %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(tt.dir, "sub", "new.txt")); string(b) != "bye\n" {
		t.Errorf("disk after edit = %q", b)
	}
	writeFileT(t, filepath.Join(tt.dir, "dup.txt"), "x x\n")
	if out, isErr, _ := tt.call("edit_file", `{"path":"dup.txt","old_text":"x","new_text":"y"}`); !isErr || !strings.Contains(out, "occurs 2 times") {
		t.Errorf("ambiguous edit: %q", out)
	}
	if out, isErr, _ := tt.call("edit_file", `{"path":"dup.txt","old_text":"zzz","new_text":"y"}`); !isErr || !strings.Contains(out, "not found") {
		t.Errorf("missing old_text: %q", out)
	}
	tt.deny = true
	out, isErr, status = tt.call("write_file", `{"path":"denied.txt","content":"x"}`)
	if !isErr || status != "denied" || out != "ERROR: denied by the user" {
		t.Errorf("denied write = %q %s", out, status)
	}
	if _, err := os.Stat(filepath.Join(tt.dir, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a denied write reached the disk")
	}
	tt.deny = false
	tt.env.Autopilot = true
	n := len(tt.asks)
	tt.call("write_file", `{"path":"auto.txt","content":"x"}`)
	if len(tt.asks) != n+1 {
		t.Errorf("a write under autopilot did not ask (G3: autopilot skips only commands the classifier calls safe)")
	}
}

func TestWriteOutsideTheWorkspaceIsRefusedBeforeAsking(t *testing.T) {
	tt := newToolTest(t)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(tt.dir, "out"))
	out, isErr, _ := tt.call("write_file", `{"path":"out/x.txt","content":"x"}`)
	if !isErr || !strings.Contains(out, "outside the workspace") || len(tt.asks) != 0 {
		t.Fatalf("write through a symlink out = %q, asks %d", out, len(tt.asks))
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file created outside the workspace")
	}
}

func TestResourceToolsWithoutServers(t *testing.T) {
	tt := newToolTest(t)
	if out, isErr, _ := tt.call("list_mcp_resources", `{}`); isErr || out != "no MCP servers are configured" {
		t.Errorf("list_mcp_resources = %q", out)
	}
	if out, isErr, _ := tt.call("read_mcp_resource", `{"server":"x","uri":"y"}`); !isErr || !strings.Contains(out, "no MCP servers") {
		t.Errorf("read_mcp_resource = %q", out)
	}
}

func TestCapTextSaysHowMuchWasCut(t *testing.T) {
	got := capText(strings.Repeat("é", 100), 51)
	if !strings.HasPrefix(got, strings.Repeat("é", 25)+"\n[... 150 of 200 bytes cut]") {
		t.Errorf("capText = %q", got)
	}
}

func TestBuiltinTimeoutSaysWhichToolAndHowLong(t *testing.T) {
	slow := &builtin{def: readFileTool.def, timeout: 10 * time.Millisecond,
		run: func(ctx context.Context, _ *Env, _ Call, _ json.RawMessage) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}}
	tt := newToolTest(t)
	o := Run(context.Background(), tt.env, slow, slow.Plan(tt.env, nil).Timeout, tt, nil)
	out, isErr, status := o.Text, o.IsError, o.Status
	if !isErr || status != "failed" || out != "ERROR: read_file timed out after 10ms" {
		t.Errorf("timed out builtin = %q %v %s", out, isErr, status)
	}
}
