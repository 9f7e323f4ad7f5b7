package agent

import (
	"context"
	"encoding/json"
	"github.com/agentls/agentls/agent/tools"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

func TestResourceToolsAgainstServerEverything(t *testing.T) {
	bin := testenv.NodeBin(t, "mcp-server-everything")
	f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "everything", Origin: config.User, Command: bin, Args: []string{"stdio", root}, Cwd: root}}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.core.reg.Wait(ctx)
	// The user allows this server's tools, so its resource reads too.
	allow := &trust.Policy{Rules: []config.PolicyRule{allowRule("everything__*", "allow")}}
	env := &tools.Env{Workspace: f.ws, Registry: f.core.reg, MaxBytes: 64 << 10, Policy: func() *trust.Policy { return allow }}
	call := func(name, args string) (string, bool) {
		b, _ := tools.Builtin(name)
		o := tools.Run(ctx, env, b, b.Plan(env, json.RawMessage(args)).Timeout, allowedCall{}, json.RawMessage(args))
		return o.Text, o.IsError
	}
	list, isErr := call("list_mcp_resources", `{}`)
	if isErr || !strings.Contains(list, "everything · demo://resource/static/document/") {
		t.Fatalf("list_mcp_resources = %q", list)
	}
	text, isErr := call("read_mcp_resource", `{"server":"everything","uri":"demo://resource/dynamic/text/1"}`)
	if isErr || !strings.HasPrefix(text, "Resource 1: This is a plaintext resource") {
		t.Errorf("text resource = %q", text)
	}
	out, isErr := call("read_mcp_resource", `{"server":"everything","uri":"demo://resource/dynamic/blob/2"}`)
	_, path, found := strings.Cut(out, " saved to ")
	if isErr || !strings.HasPrefix(out, "binary content (text/plain, ") || !found {
		t.Fatalf("blob resource = %q, want a temp file path", out)
	}
	defer os.Remove(path)
	got, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(got), "Resource 2: This is a base64 blob") || filepath.Dir(path) != filepath.Clean(os.TempDir()) {
		t.Errorf("temp file %s = %q (%v)", path, got, err)
	}
	if out, isErr := call("read_mcp_resource", `{"server":"nope","uri":"x://y"}`); !isErr || !strings.Contains(out, "nope") {
		t.Errorf("unknown server = %q", out)
	}
}

// allowedCall is a call whose gate lets everything the policy allows
// through and refuses the rest (nobody is asked).
type allowedCall struct{}

func (allowedCall) Gate(_ context.Context, d trust.Decision, _ Approval) (string, error) {
	if d.Action != trust.Allow {
		return "", &tools.Denied{Msg: "ERROR: denied: " + d.Reason + ", and there is nobody to ask"}
	}
	return "", nil
}
func (allowedCall) Progress(string)  {}
func (allowedCall) ServerLog(string) {}
func (allowedCall) Elicit(context.Context, mcp.Elicitation) mcp.ElicitAnswer {
	return mcp.ElicitAnswer{Action: wire.ElicitDecline}
}
