//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// The attack: a repository ships AGENTS.md as a link to something that is not
// its own text. agentls puts AGENTS.md into the system prompt of every model
// request with no card, so whatever it reads there goes to the model.
func TestRunAgentsMDIsReadConfinedToTheWorkspace(t *testing.T) {
	const canary = "ghp_CanaryTokenFromTheEnvironment0123456789"
	cases := []struct {
		name  string
		plant func(t *testing.T, ws, outside string)
	}{
		{"link to /proc/self/environ does not send the environment", func(t *testing.T, ws, _ string) {
			symlinkT(t, "/proc/self/environ", filepath.Join(ws, "AGENTS.md"))
		}},
		{"link to /dev/zero does not read without bound", func(t *testing.T, ws, _ string) {
			symlinkT(t, "/dev/zero", filepath.Join(ws, "AGENTS.md"))
		}},
		{"link to a file outside the workspace is not read", func(t *testing.T, ws, outside string) {
			secret := filepath.Join(outside, "id_ed25519")
			if err := os.WriteFile(secret, []byte(canary+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			symlinkT(t, secret, filepath.Join(ws, "AGENTS.md"))
		}},
		{"a FIFO does not block the turn", func(t *testing.T, ws, _ string) {
			if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory is not read", func(t *testing.T, ws, _ string) {
			if err := os.Mkdir(filepath.Join(ws, "AGENTS.md"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, model, cmd := agentsMDRun(t)
			c.plant(t, ws, t.TempDir())
			model.Script(modeltest.Turn{Text: "done"})
			cmd.Env = append(cmd.Env, "CANARY_TOKEN="+canary)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("agentls run: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
			}
			reqs := model.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests, want 1", len(reqs))
			}
			sys := reqs[0].System()
			if strings.Contains(sys, canary) || strings.Contains(sys, "CANARY_TOKEN") {
				t.Errorf("the system prompt carries what the link points at:\n%s", sys)
			}
			if !strings.Contains(sys, "AGENTS.md was not read") {
				t.Errorf("the system prompt does not say AGENTS.md was refused:\n%s", sys)
			}
		})
	}
	t.Run("a regular AGENTS.md inside is still read", func(t *testing.T) {
		ws, model, cmd := agentsMDRun(t)
		if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Run make test.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		model.Script(modeltest.Turn{Text: "done"})
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("agentls run: %v\n%s", err, out)
		}
		if sys := model.Requests()[0].System(); !strings.Contains(sys, "Run make test.") || strings.Contains(sys, "was not read") {
			t.Errorf("the system prompt lacks the project's AGENTS.md:\n%s", sys)
		}
	})
}

// agentsMDRun prepares `agentls run` in a fresh workspace with no MCP servers,
// under a 1.5 GB address-space limit: a read without bound ends in an
// out-of-memory crash of that process instead of growing until the machine
// kills something.
func agentsMDRun(t *testing.T) (ws string, model *modeltest.Server, cmd *exec.Cmd) {
	t.Helper()
	bin := testenv.Agentls(t)
	sh := testenv.Tool(t, "sh")
	model = modeltest.New(t)
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	ws = filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(tmp, "config.toml")
	cfg := fmt.Sprintf("[model]\nprovider = \"anthropic\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n", model.URL())
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(sh, "-c", `ulimit -v 1500000 && exec "$0" "$@"`, bin, "run", "say hi")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+cfgPath, "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "AGENTLS_TEST_KEY=test",
		"MALLOC_ARENA_MAX=2") // glibc reserves 64 MB of address space per thread otherwise
	return ws, model, cmd
}

func symlinkT(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
