package mcp

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/mcp/toolname"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

func TestRegistryConnectsAndCalls(t *testing.T) {
	s := faultServer(t, "f")
	r := startRegistry(t, []config.Server{s}, Options{Reserved: []string{"read_file"}})
	info := serverInfo(t, r, "f")
	if info.State != Connected {
		t.Fatalf("state %s (%s), want connected", info.State, info.Error)
	}
	if got, want := strings.Join(info.Command, " "), faultBin+" "+strings.Join(s.Args, " "); got != want {
		t.Errorf("command %q, want the literal argv %q", got, want)
	}
	var echo *Tool
	sum := 0
	for i, tool := range info.Tools {
		sum += tool.SchemaTokens
		if tool.Name == "f__echo" {
			echo = &info.Tools[i]
		}
	}
	if echo == nil {
		t.Fatalf("no f__echo among %d tools", len(info.Tools))
	}
	if info.SchemaTokens != sum || sum == 0 {
		t.Errorf("server schemaTokens %d, want the sum of its tools %d (> 0)", info.SchemaTokens, sum)
	}
	if echo.ServerTool != "echo" || echo.Server != "f" || echo.Annotations == nil || !echo.Annotations.ReadOnlyHint {
		t.Errorf("echo tool = %+v", echo)
	}
	if want := DefinitionHash("Returns its text.", echo.InputSchema, echo.Annotations); echo.DefinitionHash != want {
		t.Errorf("definition hash %s, want %s", echo.DefinitionHash, want)
	}
	if !json.Valid(echo.InputSchema) || !strings.Contains(string(echo.InputSchema), `"text"`) {
		t.Errorf("input schema not passed through: %s", echo.InputSchema)
	}
	mustCall(t, r, "f__echo", `{"text":"hello"}`, "hello")
	res := call(t, r, "f__fail", `{}`)
	if !res.IsError || res.Text != "ERROR: f: it went wrong" {
		t.Errorf("isError result = %+v, want ERROR: f: it went wrong", res)
	}
	res = call(t, r, "f__image", ``)
	if want := "a picture:\n[image: image/png, 3 KB; not shown to the model: its bytes are not image/png (they read as application/octet-stream)]"; res.IsError || res.Text != want || len(res.Images) != 0 {
		t.Errorf("image result = %q with %d images, want %q and none: its bytes are zeros, not a PNG", res.Text, len(res.Images), want)
	}
	res = call(t, r, "f__echo", `["not", "an object"]`)
	if !res.IsError || !strings.Contains(res.Text, "must be a JSON object") {
		t.Errorf("array arguments = %+v, want a clear error", res)
	}
	res = call(t, r, "nope__nothing", `{}`)
	if !res.IsError || !strings.Contains(res.Text, "unknown tool") {
		t.Errorf("unknown tool = %+v", res)
	}
}

func TestToolsGetLegalDistinctNames(t *testing.T) {
	a := faultServer(t, "a", "-weird-names")
	b := faultServer(t, "b", "-weird-names")
	r := startRegistry(t, []config.Server{a, b}, Options{Reserved: []string{"read_file", "a__read_file"}})
	seen := map[string]bool{}
	origs := map[string]bool{}
	for _, tool := range r.Tools() {
		if !toolname.Valid(tool.Name) {
			t.Errorf("illegal name %q handed out (server tool %q)", tool.Name, tool.ServerTool)
		}
		if seen[tool.Name] {
			t.Errorf("name %q handed out twice", tool.Name)
		}
		seen[tool.Name] = true
		origs[tool.Server+"/"+tool.ServerTool] = true
		if tool.Name == "a__read_file" || tool.Name == "read_file" {
			t.Errorf("reserved name %q handed out", tool.Name)
		}
	}
	for _, want := range []string{"a/a/b:c", "b/a/b:c", "a/read_file", "b/read_file", "a/" + strings.Repeat("n", 100), "a/ツール"} {
		if !origs[want] {
			t.Errorf("tool %s was dropped", want)
		}
	}
	// The map back is exact: calling the renamed tools reaches the original.
	for _, tool := range r.Tools() {
		if tool.ServerTool == "a/b:c" || tool.ServerTool == "read_file" {
			mustCall(t, r, tool.Name, `{}`, "called "+tool.ServerTool)
		}
	}
}

func TestLaunchGate(t *testing.T) {
	ws := faultServer(t, "ws")
	ws.Origin = config.Workspace
	stale := faultServer(t, "stale")
	stale.Origin = config.Workspace
	approved := faultServer(t, "approved")
	approved.Origin = config.Workspace
	disabled := faultServer(t, "off")
	disabled.Disabled = true
	broken := faultServer(t, "broken")
	broken.Err = "config.toml:12: command: expected a string"
	user := faultServer(t, "user")

	t.Run("no gate starts user-tier servers and never workspace-tier ones", func(t *testing.T) {
		r := startRegistry(t, []config.Server{ws, user}, Options{})
		if st := serverInfo(t, r, "ws").State; st != NeedsApproval {
			t.Errorf("workspace server state %s, want needs_approval", st)
		}
		if st := serverInfo(t, r, "user").State; st != Connected {
			t.Errorf("user server state %s, want connected", st)
		}
		if p := testenv.ProcessesMatching(markerOf(ws)); len(p) > 0 {
			t.Errorf("a workspace server was started without consent: %+v", p)
		}
	})
	t.Run("the gate holds or starts each server and disabled or broken entries never start", func(t *testing.T) {
		gate := func(s config.Server) (State, config.Server) {
			switch s.Name {
			case "approved":
				return "", s
			case "stale":
				return ApprovalStale, s
			}
			if s.Origin == config.User {
				return "", s
			}
			return NeedsApproval, s
		}
		r := startRegistry(t, []config.Server{ws, stale, approved, disabled, broken}, Options{Gate: gate})
		want := map[string]State{"ws": NeedsApproval, "stale": ApprovalStale, "approved": Connected, "off": Disabled, "broken": Failed}
		for name, st := range want {
			if got := serverInfo(t, r, name).State; got != st {
				t.Errorf("%s: state %s, want %s", name, got, st)
			}
		}
		if e := serverInfo(t, r, "broken").Error; e != broken.Err {
			t.Errorf("broken entry error %q, want the config's %q", e, broken.Err)
		}
		for _, s := range []config.Server{ws, stale, disabled, broken} {
			if p := testenv.ProcessesMatching(markerOf(s)); len(p) > 0 {
				t.Errorf("%s was started: %+v", s.Name, p)
			}
		}
	})
}

func TestEnvironmentByTier(t *testing.T) {
	t.Setenv("AGENTLS_TEST_SECRET", "s3cret")
	user := faultServer(t, "user")
	user.Env = map[string]string{"DECLARED": "yes"}
	ws := faultServer(t, "ws")
	ws.Origin = config.Workspace
	ws.Env = map[string]string{"DECLARED": "${AGENTLS_TEST_SECRET:-x}-ws"}
	bad := faultServer(t, "bad")
	bad.Env = map[string]string{"X": "${AGENTLS_TEST_UNSET_VAR}"}
	gate := approveAll
	r := startRegistry(t, []config.Server{user, ws, bad}, Options{Gate: gate})
	mustCall(t, r, "user__getenv", `{"text":"AGENTLS_TEST_SECRET"}`, "s3cret")
	mustCall(t, r, "user__getenv", `{"text":"DECLARED"}`, "yes")
	// A repo's server must not read agentls's environment beyond the base.
	mustCall(t, r, "ws__getenv", `{"text":"AGENTLS_TEST_SECRET"}`, "<unset>")
	mustCall(t, r, "ws__getenv", `{"text":"DECLARED"}`, "s3cret-ws")
	if p := call(t, r, "ws__getenv", `{"text":"PATH"}`); p.IsError || p.Text == "<unset>" {
		t.Errorf("workspace server has no PATH: %+v", p)
	}
	info := serverInfo(t, r, "bad")
	if info.State != Failed || !strings.Contains(info.Error, "AGENTLS_TEST_UNSET_VAR") {
		t.Errorf("bad env: state %s error %q, want failed naming the variable", info.State, info.Error)
	}
	if got := serverInfo(t, r, "ws").EnvKeys; len(got) != 1 || got[0] != "DECLARED" {
		t.Errorf("envKeys %v, want [DECLARED]", got)
	}
}

func TestListChangedRelists(t *testing.T) {
	changed := make(chan struct{}, 1)
	r := startRegistry(t, []config.Server{faultServer(t, "f")}, Options{OnChange: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	mustCall(t, r, "f__add_tool", `{"name":"late_tool"}`, "added late_tool")
	eventually(t, "f__late_tool to appear after tools/list_changed", func() bool {
		for _, tool := range r.Tools() {
			if tool.Name == "f__late_tool" {
				return true
			}
		}
		return false
	})
	select {
	case <-changed:
	default:
		t.Errorf("OnChange was never called")
	}
	mustCall(t, r, "f__late_tool", `{}`, "added tool late_tool")
}

func TestResources(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f")}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.Resources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, x := range res {
		uris = append(uris, x.Server+" "+x.URI)
	}
	if strings.Join(uris, ",") != "f fault://blob,f fault://text" {
		t.Fatalf("resources %v", uris)
	}
	text, err := r.ReadResource(ctx, "f", "fault://text")
	if err != nil || text.Text != "hello resource" || text.MIMEType != "text/plain" {
		t.Errorf("text resource = %+v, %v", text, err)
	}
	blob, err := r.ReadResource(ctx, "f", "fault://blob")
	if err != nil || string(blob.Blob) != "\x00\x01\x02\x03" || blob.Text != "" {
		t.Errorf("blob resource = %+v, %v", blob, err)
	}
	if _, err := r.ReadResource(ctx, "nope", "x://y"); err == nil || !strings.Contains(err.Error(), `no server named "nope"`) {
		t.Errorf("unknown server: %v", err)
	}
}

func TestRestartReapsAndReconnects(t *testing.T) {
	s := faultServer(t, "f", "-child")
	r := startRegistry(t, []config.Server{s}, Options{})
	before := testenv.ProcessesMatching(markerOf(s))
	want := 2 // the server and its own child
	if runtime.GOOS == "linux" {
		want = 3 // and the reaper they run under
	}
	if len(before) != want {
		t.Fatalf("want the server and its own child (and the reaper on Linux), found %+v", before)
	}
	st, err := r.Restart(context.Background(), "f")
	if err != nil || st != Connecting {
		t.Fatalf("Restart = %s, %v", st, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.Wait(ctx)
	mustCall(t, r, "f__echo", `{"text":"again"}`, "again")
	alive := map[int]bool{}
	for _, p := range testenv.ProcessesMatching(markerOf(s)) {
		alive[p.PID] = true
	}
	for _, p := range before {
		if alive[p.PID] {
			t.Errorf("process of the first run survived the restart: %d %s", p.PID, p.Cmdline)
		}
	}
}
