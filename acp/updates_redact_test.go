package acp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/trust"
)

// TestAgentMessageChunksAreRedacted is red-team finding 9 through ACP: the
// real binary under the real SDK client. The model echoes a GitHub token a
// tool (fs__getenv of the fault server) returned, cut mid-token across
// deltas; no agent_message_chunk may carry any piece of it.
func TestAgentMessageChunksAreRedacted(t *testing.T) {
	const token = "ghp_h12aAcpAbCdEfGhIjKlMnOpQrStUvWx"
	deltas := []string{"Here it is: ", "ghp_h12aAcp", "AbCdEfGhIj", "KlMnOpQrStUvWx", " keep it safe."}
	marker := "acp-redact-" + t.Name()
	w := newWorld(t, faultServer(t, marker)+"\n[mcp.policy]\n\"fs__echo\" = \"allow\"\n")
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__echo", Input: `{"text":"` + token + `"}`}}},
		modeltest.Turn{Deltas: deltas},
	)
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "echo my token", Answers: []string{"allow_once"}}}})
	if got, want := out.text(), trust.Redact(strings.Join(deltas, "")); got != want || want != "Here it is: [REDACTED] keep it safe." {
		t.Errorf("agent_message_chunk text = %q, want %q", got, want)
	}
	for _, u := range out.Updates {
		if u.Update.SessionUpdate != updateAgentMessage {
			continue
		}
		for _, piece := range []string{"ghp_h12aAcp", "AbCdEfGhIj", "KlMnOpQrStUvWx"} {
			if strings.Contains(u.Update.chunkText(), piece) {
				t.Errorf("an agent_message_chunk carries %q: %q", piece, u.Update.chunkText())
			}
		}
	}
}
