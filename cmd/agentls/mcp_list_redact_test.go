package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// Secrets a user config passes a server on its command line (red-team
// finding 8). They are shaped like real tokens so the redaction's shape
// rules, its key=value rule and its secret-flag rule each have one.
const (
	listAnthropicKey = "sk-ant-api03-h12aAbCdEfGhIjKlMnOpQrStUvWx"
	listGitHubToken  = "ghp_h12aAbCdEfGhIjKlMnOpQrStUvWxYz012345"
	listPlainSecret  = "correct-horse-battery-staple"
	listEnvSecret    = "ghp_h12aEnvOnlyAbCdEfGhIjKlMnOpQrStUv"
)

// TestMCPListRedactsSecretsInServerArgs is red-team finding 8: `agentls mcp
// list` (text and --json) and `agentls doctor` printed a server's
// `--api-key sk-ant-...` and `TOKEN=ghp_...` verbatim.
func TestMCPListRedactsSecretsInServerArgs(t *testing.T) {
	bin := testenv.Agentls(t)
	fault := testenv.GoBinary(t, "./internal/faultserver")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf(`[mcp.servers.vault]
command = %q
args = ["-marker", "h12a-redact", "TOKEN=%s", "--api-key", %q, "--password", %q, "--verbose"]
env = { VAULT_TOKEN = %q }
`, fault, listGitHubToken, listAnthropicKey, listPlainSecret, listEnvSecret)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "list", "--json", "--config", cfgPath, "--workspace", dir},
		{"mcp", "list", "--config", cfgPath, "--workspace", dir},
		{"doctor", "--config", cfgPath, "--workspace", dir},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = mcpListEnv(t)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if args[0] == "mcp" && err != nil {
			t.Fatalf("agentls %v: %v\n%s", args, err, out.String())
		}
		got := out.String()
		if !strings.Contains(got, "h12a-redact") || !strings.Contains(got, "--verbose") {
			t.Errorf("agentls %v does not show the server's command line:\n%s", args[:2], got)
		}
		for _, secret := range []string{listAnthropicKey, listGitHubToken, listPlainSecret, listEnvSecret} {
			if strings.Contains(got, secret) {
				t.Errorf("agentls %v prints the secret %q:\n%s", args[:2], secret, got)
			}
		}
		if !strings.Contains(got, "[REDACTED]") {
			t.Errorf("agentls %v: no [REDACTED] where the secrets were:\n%s", args[:2], got)
		}
	}
}
