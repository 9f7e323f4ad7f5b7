package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestServerListRedactsSecretsInArgs is red-team finding 8 through serve:
// agent/mcp/servers carried a server's `--api-key sk-ant-...` and
// `TOKEN=ghp_...` verbatim to the editor.
func TestServerListRedactsSecretsInArgs(t *testing.T) {
	fault := testenv.GoBinary(t, "./internal/faultserver")
	const (
		anthropic = "sk-ant-api03-h12aServeAbCdEfGhIjKlMnOpQr"
		github    = "ghp_h12aServeAbCdEfGhIjKlMnOpQrStUvWxYz01"
		plain     = "correct-horse-battery-staple"
	)
	e := newEnv(t, fmt.Sprintf("[mcp.servers.vault]\ncommand = %q\nargs = [\"-marker\", \"h12a-serve\", \"TOKEN=%s\", \"--api-key\", %q, \"--token\", %q]\n",
		fault, github, anthropic, plain))
	c := e.start(t)
	c.initialize(e.root, caps(true, false, false))
	c.waitState("vault", "connected")
	var res json.RawMessage
	c.mustCall("agent/mcp/servers", map[string]any{}, &res)
	got := string(res)
	if i := strings.Index(got, `"tools"`); i > 0 {
		got = got[:i] // the command line and the rest of the row; tools carry no config
	}
	if !strings.Contains(got, "h12a-serve") || !strings.Contains(got, "[REDACTED]") {
		t.Errorf("agent/mcp/servers: want the command line with [REDACTED] where the secrets were: %s", got)
	}
	for _, secret := range []string{anthropic, github, plain} {
		if strings.Contains(got, secret) {
			t.Errorf("agent/mcp/servers carries the secret %q: %s", secret, got)
		}
	}
}
