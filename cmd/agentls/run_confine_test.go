package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/trust"
)

// TestRunAsksAgainWhenAnApprovedServerCannotBeConfined: a repository's
// server was approved on a card that said the kernel confines it. Where
// agentls then runs without Landlock (here: under a seccomp filter that
// fails its system calls, as a container's profile may), the server would
// run with the user's full access: that is not what was approved, so it is
// held as approval_stale until a card saying so is approved.
func TestRunAsksAgainWhenAnApprovedServerCannotBeConfined(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	e := newRunEnv(t, "openai", "")
	bin := testenv.GoBinary(t, "./internal/faultserver")
	nolandlock := testenv.GoBinary(t, "./internal/nolandlock")
	marker := "repo-confine-" + filepath.Base(t.TempDir())
	os.MkdirAll(filepath.Join(e.ws, ".agentls"), 0o755)
	repoCfg := fmt.Sprintf("[mcp.servers.repo]\ncommand = %q\nargs = [\"-marker\", %q]\n", bin, marker)
	if err := os.WriteFile(filepath.Join(e.ws, ".agentls", "config.toml"), []byte(repoCfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// Approved as its card showed it here, confined (what agentls mcp trust stores).
	cfg := config.Load(e.config, []string{e.ws})
	var srv config.Server
	for _, s := range cfg.MCP.Servers {
		if s.Name == "repo" {
			srv = s
		}
	}
	if srv.Name == "" || !trust.Confinement(srv, "").Confined {
		t.Fatalf("the repository's server %+v is not loaded, or not confined here", srv)
	}
	store := trust.OpenStore(filepath.Join(e.state, "agentls", "trust.json"))
	if err := store.ApproveLaunch(srv.WorkspaceRoot, srv.Name, trust.ServerFingerprint(srv)); err != nil {
		t.Fatal(err)
	}

	held := `MCP server "repo" from the workspace config is not started`
	e.model.Script(modeltest.Turn{Text: "hello"})
	if code, _, stderr := e.run(t, "hi"); code != 0 || strings.Contains(stderr, held) {
		t.Fatalf("with Landlock the approved server should start: exit %d\n%s", code, stderr)
	}
	if names := strings.Join(e.model.Requests()[0].ToolNames(), ","); !strings.Contains(names, "repo__echo") {
		t.Fatalf("the approved server's tools were not offered: %s", names)
	}

	e.model.Script(modeltest.Turn{Text: "hello"})
	cmd := e.command("hi")
	cmd.Args = append([]string{nolandlock}, cmd.Args...)
	cmd.Path = nolandlock
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), held) || !strings.Contains(string(out), "approval_stale") {
		t.Errorf("without Landlock the server approved as confined was not held:\n%s", out)
	}
	if names := strings.Join(e.model.Requests()[1].ToolNames(), ","); strings.Contains(names, "repo__") {
		t.Errorf("its tools were offered: %s", names)
	}
}
