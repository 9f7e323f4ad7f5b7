// Package testenv finds the real tools agentls's tests drive (the npm MCP
// reference servers, Node.js, the editors, tmux) and builds the agentls
// binary once per test process. A missing tool skips the test locally and
// fails it under CI=true: in CI nothing is silently skipped.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// InCI reports whether tests run under CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing skips the test locally, or fails it in CI, saying what is missing
// and how to get it.
func Missing(t testing.TB, what, how string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is missing (CI=true, so this fails instead of skipping): %s", what, how)
	}
	t.Skipf("skipping: %s is missing: %s", what, how)
}

// RepoRoot is the folder that holds go.mod.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// NodeBin returns the path of an npm package's binary installed in
// tools/node (e.g. "mcp-server-everything", "mcp-server-filesystem").
func NodeBin(t testing.TB, name string) string {
	t.Helper()
	Tool(t, "node")
	p := filepath.Join(RepoRoot(), "tools", "node", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		Missing(t, name, "run scripts/setup.sh (npm ci in tools/node)")
	}
	return p
}

// NodeModules is tools/node/node_modules, for NODE_PATH.
func NodeModules(t testing.TB) string {
	t.Helper()
	Tool(t, "node")
	p := filepath.Join(RepoRoot(), "tools", "node", "node_modules")
	if _, err := os.Stat(p); err != nil {
		Missing(t, "tools/node/node_modules", "run scripts/setup.sh (npm ci in tools/node)")
	}
	return p
}

// MCPv2Server is tools/node/mcp-v2-server.mjs, a stdio MCP server on the
// official TypeScript SDK v2 (protocol revision 2026-07-28, and 2025-11-25
// for a client that opens with initialize), run with node.
func MCPv2Server(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(NodeModules(t), "@modelcontextprotocol", "server", "package.json")); err != nil {
		Missing(t, "@modelcontextprotocol/server", "run scripts/setup.sh (npm ci in tools/node)")
	}
	return filepath.Join(RepoRoot(), "tools", "node", "mcp-v2-server.mjs")
}

// MCPv2ServerConfig is the TOML of [MCPv2Server] as the user's MCP
// server "v2", its tools allowed, logging the requests it gets to log.
func MCPv2ServerConfig(t testing.TB, log string) string {
	t.Helper()
	script := MCPv2Server(t)
	return fmt.Sprintf("[mcp.servers.v2]\ncommand = %q\nargs = [%q]\nenv = { MCP_V2_LOG = %q }\n\n[mcp.policy]\n\"v2__*\" = \"allow\"\n",
		Tool(t, "node"), script, log)
}

// AppServerConfig is the TOML of the real MCP App server on npm
// (@modelcontextprotocol/server-basic-vanillajs, on stdio) as the user's
// MCP server "basic", its get-time allowed: that tool's definition names
// the App ui://get-time/mcp-app.html.
func AppServerConfig(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("[mcp.servers.basic]\ncommand = %q\nargs = [%q, \"--stdio\"]\n\n[mcp.policy]\n\"basic__get-time\" = \"allow\"\n",
		Tool(t, "node"), NodeBin(t, "mcp-server-basic-vanillajs"))
}

// Tool returns the path of a program on PATH.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, "run scripts/setup.sh")
	}
	return p
}

// EditorsDir is where scripts/fetch-editors.sh unpacks the newer editors.
func EditorsDir() string {
	if d := os.Getenv("AGENTLS_EDITORS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agentls-editors")
}

// Editor returns the path of an editor: "nvim" (Debian's 0.7.2 on PATH),
// "nvim-0.10" or "hx" (from scripts/fetch-editors.sh).
func Editor(t testing.TB, name string) string {
	t.Helper()
	if name == "nvim" {
		return Tool(t, "nvim")
	}
	p := filepath.Join(EditorsDir(), "bin", name)
	if _, err := os.Stat(p); err != nil {
		Missing(t, name, "run scripts/fetch-editors.sh")
	}
	return p
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
	buildOut  []byte
)

// Agentls builds cmd/agentls once per test process and returns the binary.
// Its launcher of confined programs, cmd/agentls-sandbox, is built in the
// same go build beside it, where agentls finds it (see [SandboxLauncher]).
func Agentls(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "agentls-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", buildDir+string(filepath.Separator), "./cmd/agentls", "./cmd/agentls-sandbox")
		cmd.Dir = RepoRoot()
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/agentls ./cmd/agentls-sandbox: %v\n%s", buildErr, buildOut)
	}
	return filepath.Join(buildDir, "agentls")
}

// SandboxLauncher returns the agentls-sandbox built beside [Agentls]'s
// binary: the launcher a test binary passes to sandbox.UseLauncher to
// confine programs the way the installed agentls does.
func SandboxLauncher(t testing.TB) string {
	t.Helper()
	return filepath.Join(filepath.Dir(Agentls(t)), "agentls-sandbox")
}

// GoBinary builds a main package of this module (e.g. "./internal/faultserver")
// into a temp dir and returns its path. Each call builds; cache the result.
func GoBinary(t testing.TB, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// WriteFile writes text to path, making its folders.
func WriteFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
