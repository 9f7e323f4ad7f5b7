package mcp

import (
	"cmp"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/trust"
)

// reachFixture is a workspace, a folder outside it holding a secret, and a
// TCP listener that counts the connections it accepts.
type reachFixture struct {
	ws, outside, secret, addr string
	accepted                  *atomic.Int64
}

func newReachFixture(t *testing.T) reachFixture {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	f := reachFixture{ws: realDir(t), outside: realDir(t), accepted: new(atomic.Int64)}
	f.secret = filepath.Join(f.outside, "id_ed25519")
	if err := os.WriteFile(f.secret, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, "README"), []byte("workspace file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.accepted.Add(1)
			c.Close()
		}
	}()
	f.addr = ln.Addr().String()
	return f
}

func realDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// server is the fault server with the reach tools, as a repository's
// server (workspace tier) or the user's own.
func (f reachFixture) server(t *testing.T, name string, origin config.Origin) config.Server {
	s := faultServer(t, name, "-write", filepath.Join(f.outside, name+"-planted"), "-read", f.secret, "-connect", f.addr, "-exec")
	s.Origin, s.WorkspaceRoot, s.Cwd = origin, f.ws, f.ws
	return s
}

func approveAll(s config.Server) (State, config.Server) { return "", s }

func isPermissionError(text string) bool {
	return strings.Contains(text, "permission denied") || strings.Contains(text, "operation not permitted")
}

// TestWorkspaceServerIsConfinedByTheKernel: a repository's MCP server
// (workspace tier, no sandbox key: the default) that tries to write
// outside its state folder, read a key outside the workspace or open a
// TCP connection gets the kernel's EACCES in its own tool result, and
// nothing is written or accepted; it can still read the workspace and
// write its state folder. The same binary as the user's own server
// (unconfined by default) does all of it, so the refusals are the
// sandbox's, not the fixture's.
func TestWorkspaceServerIsConfinedByTheKernel(t *testing.T) {
	f := newReachFixture(t)
	repo := f.server(t, "repo", config.Workspace)
	user := f.server(t, "mine", config.User)
	r := startRegistry(t, []config.Server{repo, user}, Options{Gate: approveAll})
	for _, name := range []string{"repo", "mine"} {
		if st := serverInfo(t, r, name); st.State != Connected {
			t.Fatalf("%s: state %s: %s\n%s", name, st.State, st.Error, st.StderrTail)
		}
	}
	if !sandbox.Supported().Filesystem {
		// No Landlock here: the repository's server runs unconfined, and
		// the card and the list say so.
		if got := trust.Confinement(repo, "").Summary(); !strings.Contains(got, "NOT confined") {
			t.Fatalf("without Landlock the summary says %q, want it to say NOT confined", got)
		}
		return
	}
	state := trust.ServerStateDir(repo)

	planted := filepath.Join(f.outside, "repo-planted")
	if res := call(t, r, "repo__try_write", `{}`); !isPermissionError(res.Text) {
		t.Errorf("confined write outside its folder: %q, want a permission error", res.Text)
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the confined server planted %s (stat: %v)", planted, err)
	}
	if res := call(t, r, "repo__try_write", `{"path":`+quote(filepath.Join(f.ws, "x"))+`}`); !isPermissionError(res.Text) {
		t.Errorf("confined write into the workspace under workspace-read: %q, want a permission error", res.Text)
	}
	if res := call(t, r, "repo__try_read", `{}`); !isPermissionError(res.Text) || strings.Contains(res.Text, "PRIVATE") {
		t.Errorf("confined read of a key outside the workspace: %q, want a permission error", res.Text)
	}
	if res := call(t, r, "repo__try_connect", `{}`); !isPermissionError(res.Text) {
		t.Errorf("confined TCP connect: %q, want a permission error", res.Text)
	}
	if n := f.accepted.Load(); n != 0 {
		t.Errorf("the listener accepted %d connections from the confined server", n)
	}
	mustCall(t, r, "repo__try_read", `{"path":`+quote(filepath.Join(f.ws, "README"))+`}`, "read: workspace file\n")
	own := filepath.Join(state, "notes")
	mustCall(t, r, "repo__try_write", `{"path":`+quote(own)+`}`, "wrote "+own)
	// It may run what it puts in its own folder (npx installs there), not
	// a program outside.
	for dir, want := range map[string]string{state: "ran: hello\n", f.outside: ""} {
		script := filepath.Join(dir, "hello.sh")
		if err := os.WriteFile(script, []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		res := call(t, r, "repo__try_exec", `{"path":`+quote(script)+`}`)
		if want != "" && res.Text != want || want == "" && !isPermissionError(res.Text) {
			t.Errorf("confined server running %s: %q, want %q", script, res.Text, cmp.Or(want, "a permission error"))
		}
	}
	home := call(t, r, "repo__getenv", `{"text":"HOME"}`)
	if home.Text != state {
		t.Errorf("confined server's HOME = %q, want its state folder %s", home.Text, state)
	}

	mine := filepath.Join(f.outside, "mine-planted")
	mustCall(t, r, "mine__try_write", `{}`, "wrote "+mine)
	mustCall(t, r, "mine__try_read", `{}`, "read: PRIVATE KEY\n")
	mustCall(t, r, "mine__try_connect", `{}`, "connected to "+f.addr)
	if n := f.acceptedAfter(1); n != 1 {
		t.Errorf("the listener accepted %d connections, want 1 (the unconfined server's)", n)
	}
}

// TestSandboxKeysLoosenOnlyWhatTheySay: sandbox = "workspace-write" with
// network = true lets a repository's server write the workspace and
// connect, and still not write outside; a user server that opts in with
// sandbox = "workspace-read" is confined like a repository's.
func TestSandboxKeysLoosenOnlyWhatTheySay(t *testing.T) {
	needLandlock(t)
	f := newReachFixture(t)
	open := f.server(t, "open", config.Workspace)
	open.Sandbox, open.Network = config.SandboxWorkspaceWrite, true
	optIn := f.server(t, "optin", config.User)
	optIn.Sandbox = config.SandboxWorkspaceRead
	r := startRegistry(t, []config.Server{open, optIn}, Options{Gate: approveAll})

	inWS := filepath.Join(f.ws, "written")
	mustCall(t, r, "open__try_write", `{"path":`+quote(inWS)+`}`, "wrote "+inWS)
	mustCall(t, r, "open__try_connect", `{}`, "connected to "+f.addr)
	if res := call(t, r, "open__try_write", `{}`); !isPermissionError(res.Text) {
		t.Errorf("workspace-write server writing outside the workspace: %q, want a permission error", res.Text)
	}
	if res := call(t, r, "optin__try_write", `{}`); !isPermissionError(res.Text) {
		t.Errorf("user server with sandbox = workspace-read writing outside: %q, want a permission error", res.Text)
	}
	if res := call(t, r, "optin__try_connect", `{}`); !isPermissionError(res.Text) {
		t.Errorf("user server with sandbox = workspace-read connecting: %q, want a permission error", res.Text)
	}
	if n := f.acceptedAfter(1); n != 1 {
		t.Errorf("the listener accepted %d connections, want 1 (network = true)", n)
	}
}

// TestReferenceFilesystemServerWorksConfined: the npm server-filesystem, a
// repository's server confined to the workspace with sandbox =
// "workspace-write", lists, reads and writes the workspace, and is refused
// (by the kernel, not by its own allow-list, which names the outside
// folder too) outside it.
func TestReferenceFilesystemServerWorksConfined(t *testing.T) {
	needLandlock(t)
	f := newReachFixture(t)
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	fs := config.Server{Name: "fs", Origin: config.Workspace, WorkspaceRoot: f.ws, Cwd: f.ws,
		Command: bin, Args: []string{f.ws, f.outside}, Sandbox: config.SandboxWorkspaceWrite,
		ConnectTimeout: faultServer(t, "x").ConnectTimeout, ListTimeout: faultServer(t, "x").ListTimeout, CallTimeout: faultServer(t, "x").CallTimeout}
	r := startRegistry(t, []config.Server{fs}, Options{Gate: approveAll})
	if st := serverInfo(t, r, "fs"); st.State != Connected {
		t.Fatalf("confined server-filesystem: state %s: %s\n%s", st.State, st.Error, st.StderrTail)
	}
	if res := call(t, r, "fs__read_text_file", `{"path":`+quote(filepath.Join(f.ws, "README"))+`}`); res.IsError || !strings.Contains(res.Text, "workspace file") {
		t.Errorf("read in the workspace: %+v", res)
	}
	note := filepath.Join(f.ws, "note.txt")
	if res := call(t, r, "fs__write_file", `{"path":`+quote(note)+`,"content":"hello"}`); res.IsError {
		t.Errorf("write in the workspace: %+v", res)
	}
	if b, err := os.ReadFile(note); err != nil || string(b) != "hello" {
		t.Errorf("the workspace file holds %q (%v), want hello", b, err)
	}
	if res := call(t, r, "fs__read_text_file", `{"path":`+quote(f.secret)+`}`); !res.IsError || strings.Contains(res.Text, "PRIVATE") || !isPermissionError(strings.ToLower(res.Text)) && !strings.Contains(res.Text, "EACCES") {
		t.Errorf("read outside the workspace: %+v, want the kernel's EACCES", res)
	}
	if res := call(t, r, "fs__write_file", `{"path":`+quote(filepath.Join(f.outside, "planted"))+`,"content":"x"}`); !res.IsError {
		t.Errorf("write outside the workspace succeeded: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "planted")); !os.IsNotExist(err) {
		t.Errorf("server-filesystem planted a file outside the workspace (stat: %v)", err)
	}
}

// needLandlock skips (locally) or fails (CI) without kernel support;
// TestWorkspaceServerIsConfinedByTheKernel checks the fallback there.
func needLandlock(t *testing.T) {
	t.Helper()
	if s := sandbox.Supported(); !s.Filesystem || !s.TCP && !s.SocketFilter {
		testenv.Missing(t, "Landlock and a network limit ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestWithoutLandlockNothingClaimsConfinement: on a system that cannot
// confine (simulated by replacing what the kernel reports), a repository's
// server runs unconfined and its card and list line say so beforehand,
// and a server of the user's that asked for a sandbox is not started.
func TestWithoutLandlockNothingClaimsConfinement(t *testing.T) {
	real := sandbox.Supported
	sandbox.Supported = func() sandbox.Support {
		return sandbox.Support{Reason: "simulated: the kernel has no Landlock"}
	}
	t.Cleanup(func() { sandbox.Supported = real })
	f := newReachFixture(t)
	repo := f.server(t, "repo", config.Workspace)
	optIn := f.server(t, "optin", config.User)
	optIn.Sandbox = config.SandboxWorkspaceRead
	_, card := trust.LaunchCard(repo)
	if !strings.Contains(card, `sandbox: NOT confined on this system, it would run with your full access: sandbox = "workspace-read" needs Landlock (simulated: the kernel has no Landlock)`) {
		t.Errorf("the card does not say the server would run unconfined:\n%s", card)
	}
	r := startRegistry(t, []config.Server{repo, optIn}, Options{Gate: approveAll})
	if st := serverInfo(t, r, "repo"); st.State != Connected || !strings.HasPrefix(st.Sandbox, "NOT confined on this system") {
		t.Errorf("repo: %s %q (%s), want connected and listed as NOT confined", st.State, st.Sandbox, st.Error)
	}
	mustCall(t, r, "repo__try_write", `{}`, "wrote "+filepath.Join(f.outside, "repo-planted"))
	if st := serverInfo(t, r, "optin"); st.State != Failed || !strings.Contains(st.Error, "this system cannot confine the server") {
		t.Errorf("optin: %s %q, want failed: a user server that asked for a sandbox never runs without it", st.State, st.Error)
	}
	if p := testenv.ProcessesMatching(markerOf(optIn)); len(p) > 0 {
		t.Errorf("the opted-in server was started unconfined: %+v", p)
	}
}

// acceptedAfter waits until the listener has accepted want connections (a
// connect the kernel completed reaches the accept loop a moment after the
// server's tool call returns) or 10 s pass, and returns the count.
func (f reachFixture) acceptedAfter(want int64) int64 {
	deadline := time.Now().Add(10 * time.Second)
	for f.accepted.Load() < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return f.accepted.Load()
}

// TestARepositorysPATHOpensNoSecretFolder (issue 22 item 4): a repository's
// server whose env.PATH names folders under the home folder (~/.ssh, the
// user config's folder, agentls's state, ~/Documents) gets none of them:
// each planted file there is refused by the kernel, though every folder on
// a PATH is otherwise readable. Before, only the home folder itself and its
// parents were dropped, and the server read ~/.ssh/id_ed25519.
func TestARepositorysPATHOpensNoSecretFolder(t *testing.T) {
	needLandlock(t)
	f := newReachFixture(t)
	home := realDir(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	state := config.StateDir()
	planted := map[string]string{}
	for _, p := range []string{
		filepath.Join(home, ".ssh", "id_ed25519"),
		filepath.Join(home, ".aws", "credentials"),
		filepath.Join(home, ".config", "agentls", "config.toml"),
		filepath.Join(home, "Documents", "taxes.txt"),
		filepath.Join(state, "sessions", "old.jsonl"),
	} {
		testenv.WriteFile(t, p, "SECRET "+filepath.Base(p)+"\n")
		planted[filepath.Dir(p)] = p
	}
	repo := f.server(t, "repo", config.Workspace)
	path := "/usr/bin:/bin"
	for dir := range planted {
		path += ":" + dir
	}
	repo.Env = map[string]string{"PATH": path}
	r := startRegistry(t, []config.Server{repo}, Options{Gate: approveAll})
	if st := serverInfo(t, r, "repo"); st.State != Connected {
		t.Fatalf("state %s: %s\n%s", st.State, st.Error, st.StderrTail)
	}
	for _, file := range planted {
		if res := call(t, r, "repo__try_read", `{"path":`+quote(file)+`}`); !isPermissionError(res.Text) || strings.Contains(res.Text, "SECRET") {
			t.Errorf("a repository's server with %s on its PATH read %s: %q, want a permission error", filepath.Dir(file), file, res.Text)
		}
	}
	if sum := trust.Confinement(repo, "").Summary(); strings.Contains(sum, home) {
		t.Errorf("the card says the server reads under the home folder: %s", sum)
	}
}

// toolchainServers are a repository's servers started through the version
// managers' shims of tc (no env of their own: agentls's PATH): python3
// through pyenv, node through nvm, and npx (nvm's) running a package
// installed in the workspace.
func toolchainServers(t *testing.T, ws string) []config.Server {
	testenv.EchoServers(t, ws)
	base := faultServer(t, "x")
	mk := func(name, command string, args ...string) config.Server {
		return config.Server{Name: name, Origin: config.Workspace, WorkspaceRoot: ws, Cwd: ws, Command: command, Args: args,
			Env:            map[string]string{"npm_config_update_notifier": "false"},
			ConnectTimeout: base.ConnectTimeout, ListTimeout: base.ListTimeout, CallTimeout: base.CallTimeout}
	}
	return []config.Server{
		mk("py", "python3", filepath.Join(ws, "echo_server.py")),
		mk("js", "node", filepath.Join(ws, "echo_server.js")),
		mk("npx", "npx", "--offline", "echo-js"),
	}
}

// TestToolchainShimsRunConfined: a repository's servers started through
// pyenv's python3 shim, nvm's node and nvm's npx (the managers' layouts
// built in a temporary home, each step a file under the manager's root)
// start confined and answer a tool call. Before the toolchain roots were
// readable, the pyenv shim failed with "Permission denied" (exit 126)
// running ~/.pyenv/libexec/pyenv.
func TestToolchainShimsRunConfined(t *testing.T) {
	needLandlock(t)
	f := newReachFixture(t)
	tc := testenv.NewToolchains(t)
	tc.Use(t)
	servers := toolchainServers(t, f.ws)
	r := startRegistry(t, servers, Options{Gate: approveAll})
	for name, want := range map[string]string{"py": "python says hi", "js": "node says hi", "npx": "node says hi"} {
		if st := serverInfo(t, r, name); st.State != Connected {
			t.Errorf("%s: state %s: %s\n%s", name, st.State, st.Error, st.StderrTail)
			continue
		}
		mustCall(t, r, name+"__echo", `{"text":"hi"}`, want)
	}
	// Still nothing of the home folder but the managers' roots.
	testenv.WriteFile(t, filepath.Join(tc.Home, "notes.txt"), "SECRET\n")
	sum := trust.Confinement(servers[0], "").Summary()
	if !strings.Contains(sum, filepath.Join(tc.Home, ".pyenv")) || strings.Contains(sum, tc.Home+",") || strings.Contains(sum, tc.Home+";") {
		t.Errorf("the card should name pyenv's root and not the home folder: %s", sum)
	}
}

// TestRealPyenvRunsConfined is TestToolchainShimsRunConfined with this
// machine's own pyenv, where there is one (a fresh CI machine has none:
// the test above builds the same shape).
func TestRealPyenvRunsConfined(t *testing.T) {
	needLandlock(t)
	home, _ := os.UserHomeDir()
	shim := filepath.Join(home, ".pyenv", "shims", "python3")
	if _, err := os.Stat(shim); err != nil {
		t.Skipf("no pyenv in %s (%v): TestToolchainShimsRunConfined covers its shape", home, err)
	}
	f := newReachFixture(t)
	s := toolchainServers(t, f.ws)[0]
	s.Command = shim
	r := startRegistry(t, []config.Server{s}, Options{Gate: approveAll})
	if st := serverInfo(t, r, "py"); st.State != Connected {
		t.Fatalf("the real pyenv's python3, confined: state %s: %s\n%s", st.State, st.Error, st.StderrTail)
	}
	mustCall(t, r, "py__echo", `{"text":"hi"}`, "python says hi")
}

// TestWorkspaceServerMakesNoSocketAnotherWay: a repository's confined
// server (the default, network off) that runs a real io_uring probe (put in
// its own folder, where it may run what it installs) reaches neither a
// pathname unix socket outside its reach (an ssh-agent's) nor a UDP
// listener: io_uring, which makes sockets without socket(2), is closed to
// it like socket(2) is. The user's own server, unconfined, running the
// same probe reaches both, so the refusals are the sandbox's.
func TestWorkspaceServerMakesNoSocketAnotherWay(t *testing.T) {
	needLandlock(t)
	f := newReachFixture(t)
	repo := f.server(t, "repo", config.Workspace)
	user := f.server(t, "mine", config.User)
	r := startRegistry(t, []config.Server{repo, user}, Options{Gate: approveAll})
	probe := testenv.EscapeProbe(t)
	b, err := os.ReadFile(probe)
	if err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(trust.ServerStateDir(repo), "escapeprobe")
	if err := os.WriteFile(installed, b, 0o755); err != nil {
		t.Fatal(err)
	}
	agent := testenv.UnixStreamSink(t, f.outside)
	udp := testenv.PacketSink(t, "udp4", "127.0.0.1:0")
	for _, tc := range []struct {
		mode string
		to   *testenv.Sink
	}{{"uring-unix", agent}, {"uring-udp", udp}} {
		args := `{"path":` + quote(installed) + `,"args":["` + tc.mode + `",` + quote(tc.to.Addr) + `]}`
		res := call(t, r, "repo__try_exec", args)
		if got, msg := tc.to.Reached(t); got || strings.Contains(res.Text, "ESCAPED") {
			t.Errorf("confined server, %s: reached %s (received %q); the probe said %q", tc.mode, tc.to.Addr, msg, res.Text)
		}
		res = call(t, r, "mine__try_exec", `{"path":`+quote(probe)+`,"args":["`+tc.mode+`",`+quote(tc.to.Addr)+`]}`)
		if got, _ := tc.to.Reached(t); !got {
			t.Errorf("unconfined server, %s: did not reach %s (so this test shows nothing); the probe said %q", tc.mode, tc.to.Addr, res.Text)
		}
	}
}

// TestAConfinedServerThatFailsSaysWhatToAllow: a repository's server
// whose script lies outside the workspace (python3 cannot open it:
// "[Errno 13] Permission denied") fails saying which path the sandbox
// refused and how to allow it; named in [sandbox] read as the message
// says, it starts and answers. A server that needs the network to start
// (npx -y with an empty cache, confined with none) fails saying so and
// how to give it some.
func TestAConfinedServerThatFailsSaysWhatToAllow(t *testing.T) {
	needLandlock(t)
	f := newReachFixture(t)
	testenv.EchoServers(t, f.outside)
	script := filepath.Join(f.outside, "echo_server.py")
	base := faultServer(t, "x")
	py := config.Server{Name: "py", Origin: config.Workspace, WorkspaceRoot: f.ws, Cwd: f.ws, Command: testenv.Tool(t, "python3"), Args: []string{script},
		ConnectTimeout: base.ConnectTimeout, ListTimeout: base.ListTimeout, CallTimeout: base.CallTimeout}
	npx := config.Server{Name: "npx", Origin: config.Workspace, WorkspaceRoot: f.ws, Cwd: f.ws, Command: testenv.Tool(t, "npx"),
		Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: map[string]string{"npm_config_fetch_retries": "0", "npm_config_update_notifier": "false"},
		ConnectTimeout: time.Minute, ListTimeout: base.ListTimeout, CallTimeout: base.CallTimeout}
	r := startRegistry(t, []config.Server{py, npx}, Options{Gate: approveAll})
	st := serverInfo(t, r, "py")
	if want := "the sandbox refused " + script + " (outside what it may read, run or write); to let it read and run " + f.outside +
		", add \"" + f.outside + "\" to [sandbox] read in your user config"; st.State != Failed || !strings.Contains(st.Error, want) {
		t.Errorf("py: %s %q\nwant it failed saying %q", st.State, st.Error, want)
	}
	st = serverInfo(t, r, "npx")
	if want := `it has no network (network: none) and its stderr says it tried to reach one (npx -y and uvx fetch on their first start): choose "allow with network" on its launch card`; st.State != Failed || !strings.Contains(st.Error, want) {
		t.Errorf("npx: %s %q\nwant it failed saying %q", st.State, st.Error, want)
	}

	py.SandboxRead = []string{f.outside}
	r2 := startRegistry(t, []config.Server{py}, Options{Gate: approveAll})
	if st := serverInfo(t, r2, "py"); st.State != Connected {
		t.Fatalf("py with its folder in [sandbox] read: %s %s", st.State, st.Error)
	}
	mustCall(t, r2, "py__echo", `{"text":"hi"}`, "python says hi")
}
