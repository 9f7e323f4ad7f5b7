package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestEditorServerEnvIsLiteral: the env an ACP editor passes for a stdio
// server is the editor's own, already resolved (as its headers are): a
// project's editor settings writing TOKEN = "${AGENTLS_TEST_KEY}" must
// not have agentls fill in the user's secret from its own environment.
// The real faultserver, launched by the real SDK client's session/new,
// reads TOKEN back: it is the text the editor sent, and the launch card
// says no variable of agentls's environment is passed.
func TestEditorServerEnvIsLiteral(t *testing.T) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	marker := "acp-editor-env-" + filepath.Base(t.TempDir())
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "g1", Name: "proj__getenv", Input: `{"text":"TOKEN"}`}}},
		modeltest.Turn{Text: "done"})
	servers, _ := json.Marshal([]mcpServer{{Name: "proj", Command: bin, Args: []string{"-marker", marker},
		Env: []envVariable{{Name: "TOKEN", Value: "${AGENTLS_TEST_KEY}"}, {Name: "PRICE", Value: "5$"}}}})
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
		{Op: "prompt", Text: "read it", Answers: []string{"allow_once", "allow_once"}}}})
	if len(out.Permissions) != 2 {
		t.Fatalf("want 2 permissions (the launch, then the call), got %d", len(out.Permissions))
	}
	if card := out.Permissions[0].ToolCall.contents(); len(card) == 0 || card[0].Content == nil ||
		strings.Contains(card[0].Content.Text, "passes these variables") {
		t.Errorf("the launch card: %+v; want no variable of agentls's environment passed", card)
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || res[0].Content != "${AGENTLS_TEST_KEY}" {
		t.Errorf("the editor's server read TOKEN = %+v; want the literal text the editor sent", res)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}
