package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// mcpListEnv isolates the binary from the machine's own config and trust store.
func mcpListEnv(t *testing.T) []string {
	state := t.TempDir()
	return append(os.Environ(), "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+t.TempDir(), "AGENTLS_CONFIG=")
}

type listedServer struct {
	Name       string   `json:"name"`
	Origin     string   `json:"origin"`
	State      string   `json:"state"`
	Command    []string `json:"command"`
	EnvKeys    []string `json:"envKeys"`
	Error      string   `json:"error"`
	StderrTail string   `json:"stderrTail"`
	Sandbox    string   `json:"sandbox"`
	Tools      []struct {
		Name         string          `json:"name"`
		ServerTool   string          `json:"serverTool"`
		Policy       string          `json:"policy"`
		SchemaTokens int             `json:"schemaTokens"`
		Annotations  json.RawMessage `json:"annotations"`
	} `json:"tools"`
}

// TestMCPList runs the real binary against the npm reference servers (one
// through node, one through npx), a broken entry, a missing command and a
// workspace-declared server that must not start.
func TestMCPList(t *testing.T) {
	bin := testenv.Agentls(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	nodeBin := testenv.Tool(t, "node")
	npx := testenv.Tool(t, "npx")
	dir := t.TempDir()
	marker := fmt.Sprintf("mcplisttest_%d", os.Getpid())
	ws := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(ws, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	wsConfig := fmt.Sprintf("[mcp.servers.repo_tool]\ncommand = %q\nargs = [%q, \"stdio\", %q]\n", nodeBin, everything, marker+"_ws")
	if err := os.WriteFile(filepath.Join(ws, ".agentls", "config.toml"), []byte(wsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	user := fmt.Sprintf(`[mcp.servers.everything]
command = %q
args = [%q, "stdio", %q]
env = { EVERYTHING_MODE = "test" }
connect_timeout = "60s"

[mcp.servers.fs]
command = %q
args = ["--prefix", %q, "mcp-server-filesystem", %q]
connect_timeout = "60s"

[mcp.servers.broken]
command = 42

[mcp.servers.missing]
command = "agentls-test-no-such-command"

[mcp.policy]
"fs__read_text_file" = "allow"
"fs__write_file" = "deny"
`, nodeBin, everything, marker, npx, filepath.Join(testenv.RepoRoot(), "tools", "node"), ws)
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	env := mcpListEnv(t)

	cmd := exec.Command(bin, "mcp", "list", "--json", "--config", cfgPath, "--workspace", ws)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("agentls mcp list --json: %v\n%s", err, stderr.String())
	}
	var out struct {
		Servers []listedServer `json:"servers"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output is not {\"servers\": [...]}: %v\n%s", err, stdout.String())
	}
	// The rows are agent/mcp/servers' (docs/protocol.md Server): every
	// field present and none null, a connected server's error included.
	var raw struct{ Servers []map[string]json.RawMessage }
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, row := range raw.Servers {
		for _, k := range []string{"name", "origin", "state", "command", "envKeys", "cwd", "sandbox", "error", "stderrTail", "schemaTokens", "tools"} {
			if v, ok := row[k]; !ok || string(v) == "null" {
				t.Errorf("server %s: %q = %s, want a value of its type", row["name"], k, v)
			}
		}
	}
	byName := map[string]listedServer{}
	var names []string
	for _, s := range out.Servers {
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "broken,everything,fs,missing,repo_tool" {
		t.Fatalf("one row per configured server, sorted: got %s", got)
	}
	for _, name := range []string{"everything", "fs"} {
		s := byName[name]
		if s.State != "connected" || len(s.Tools) < 5 {
			t.Errorf("%s: state %s (%s), %d tools", name, s.State, s.Error, len(s.Tools))
		}
		for _, tool := range s.Tools {
			if !strings.HasPrefix(tool.Name, name+"__") || tool.ServerTool == "" || tool.SchemaTokens <= 0 || tool.Policy == "" {
				t.Errorf("%s: tool row %+v", name, tool)
			}
		}
	}
	if s := byName["everything"]; strings.Join(s.Command, " ") != nodeBin+" "+everything+" stdio "+marker || strings.Join(s.EnvKeys, ",") != "EVERYTHING_MODE" {
		t.Errorf("everything: command %q envKeys %v, want the literal argv and the env keys", s.Command, s.EnvKeys)
	}
	policies := map[string]string{}
	for _, tool := range byName["fs"].Tools {
		policies[tool.Name] = tool.Policy
	}
	if policies["fs__read_text_file"] != "allow" || policies["fs__write_file"] != "deny" || policies["fs__list_directory"] != "ask" {
		t.Errorf("policy column %v, want the config's rules", policies)
	}
	if s := byName["broken"]; s.State != "failed" || !strings.Contains(s.Error, "expected a string") {
		t.Errorf("broken: %s %q", s.State, s.Error)
	}
	if s := byName["missing"]; s.State != "failed" || !strings.Contains(s.Error, "not found in $PATH") {
		t.Errorf("missing: %s %q", s.State, s.Error)
	}
	if s := byName["repo_tool"]; s.State != "needs_approval" || s.Origin != "workspace" {
		t.Errorf("workspace server: %s %s, want needs_approval", s.Origin, s.State)
	}
	// What each server may touch: the user's own unconfined, the
	// repository's confined to reading the workspace by default.
	if s := byName["everything"]; !strings.HasPrefix(s.Sandbox, `not confined (sandbox = "none")`) {
		t.Errorf("everything: sandbox %q, want not confined", s.Sandbox)
	}
	if s := byName["repo_tool"]; !strings.HasPrefix(s.Sandbox, strings.TrimPrefix(wantSandboxLine(ws), "sandbox: ")) {
		t.Errorf("repo_tool: sandbox %q, want %q", s.Sandbox, wantSandboxLine(ws))
	}
	if !strings.Contains(stderr.String(), "config.toml") || !strings.Contains(stderr.String(), "broken") {
		t.Errorf("config diagnostics not on stderr: %q", stderr.String())
	}

	text := exec.Command(bin, "mcp", "list", "--config", cfgPath, "--workspace", ws)
	text.Env = env
	b, err := text.Output()
	if err != nil {
		t.Fatalf("agentls mcp list: %v", err)
	}
	for _, want := range []string{"everything  (user)  connected", "everything__echo", "fs__read_text_file", "allow",
		"repo_tool  (workspace)  needs_approval", "agentls mcp trust repo_tool",
		"  sandbox  " + strings.TrimPrefix(wantSandboxLine(ws), "sandbox: "), "missing  (user)  failed"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("text list lacks %q:\n%s", want, b)
		}
	}
	// The workspace server never ran, and nothing outlived either listing.
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

func TestMCPListUsageErrors(t *testing.T) {
	bin := testenv.Agentls(t)
	for _, args := range [][]string{
		{"mcp", "list", "extra"},
		{"mcp", "list", "--bogus"},
		{"mcp", "list", "--workspace", filepath.Join(t.TempDir(), "nope")},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = mcpListEnv(t)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || stderr.Len() == 0 {
			t.Errorf("%v: err %v, stderr %q; want exit 2 with a message", args, err, stderr.String())
		}
	}
}

// TestMCPListKilledLeavesNoServers SIGKILLs agentls while it waits for a
// server (with a grandchild) to finish its handshake.
func TestMCPListKilledLeavesNoServers(t *testing.T) {
	bin := testenv.Agentls(t)
	fault := testenv.GoBinary(t, "./internal/faultserver")
	marker := fmt.Sprintf("mcplistkill_%d", os.Getpid())
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	cfg := fmt.Sprintf("[mcp.servers.slow]\ncommand = %q\nargs = [\"-child\", \"-ignore-term\", \"-handshake-delay\", \"120s\", \"-marker\", %q]\nconnect_timeout = \"300s\"\n", fault, marker)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "list", "--config", cfgPath, "--workspace", t.TempDir())
	cmd.Env = mcpListEnv(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(testenv.ProcessesMatching(marker)) < 2 { // server and grandchild
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the server never started: %+v", testenv.ProcessesMatching(marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	testenv.WaitNoProcesses(t, marker, 15*time.Second)
}

// TestMCPListShowsTheRevision: agentls mcp list, in text and --json, says
// which MCP revision each server speaks, from one run: a server on the
// official TypeScript SDK v2 (2026-07-28) and server-everything on the v1
// SDK (2025-11-25), both over stdio.
func TestMCPListShowsTheRevision(t *testing.T) {
	bin := testenv.Agentls(t)
	nodeBin := testenv.Tool(t, "node")
	v2 := testenv.MCPv2Echo(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	marker := fmt.Sprintf("mcplistrev_%d", os.Getpid())
	cfg := fmt.Sprintf(`[mcp.servers.modern]
command = %q
args = [%q, "stdio", %q]
connect_timeout = "60s"

[mcp.servers.legacy]
command = %q
args = [%q, "stdio", %q]
connect_timeout = "60s"
`, nodeBin, v2, marker, nodeBin, everything, marker)
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := mcpListEnv(t)
	run := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"mcp", "list", "--config", cfgPath, "--workspace", dir}, args...)...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("agentls mcp list %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	var out struct {
		Servers []struct {
			Name, State, Transport, Revision, Error string
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(run("--json")), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range out.Servers {
		got[s.Name] = s.State + " " + s.Transport + " " + s.Revision + s.Error
	}
	if got["modern"] != "connected stdio 2026-07-28" || got["legacy"] != "connected stdio 2025-11-25" {
		t.Errorf("--json rows: %q, want modern on 2026-07-28 and legacy on 2025-11-25", got)
	}
	text := run()
	blocks := map[string]string{} // each server's block, by its first word
	for _, b := range strings.Split(text, "\n\n") {
		name, _, _ := strings.Cut(b, " ")
		blocks[name] = b
	}
	for name, want := range map[string]string{"modern": "\n  revision 2026-07-28\n", "legacy": "\n  revision 2025-11-25\n"} {
		if !strings.Contains(blocks[name], want) {
			t.Errorf("the text list's %s block lacks %q:\n%s", name, want, text)
		}
	}
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}
