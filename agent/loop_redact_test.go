package agent

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/trust"
)

// TestModelTextIsRedactedWhileStreaming is red-team finding 9: the model's
// own text (text deltas, done.text, the result) was never redacted, so a
// secret a tool returned and the model echoed reached the editor. The fake
// model reads a file holding secrets, then echoes them with each secret cut
// across deltas: mid-token, between "password =" and its value, and between
// "Bearer" and its credential. The text events must join to exactly the
// redacted text, still as several events, and carry no piece of a secret.
func TestModelTextIsRedactedWhileStreaming(t *testing.T) {
	const (
		token = "ghp_h12aStreamAbCdEfGhIjKlMnOpQrSt"
		pass  = "hunter2hunter2"
		cred  = "opaqueCredential0123456789"
	)
	deltas := []string{"Found it. The key is ", "ghp_h12aStr", "eamAbCdEfGhIjK", "lMnOpQrSt and the ", "password =",
		" hunter2", "hunter2", " here.\nHeader: Authorization: Bearer", " opaqueCredential", "0123456789", "\nThat is all."}
	full := strings.Join(deltas, "")
	want := trust.Redact(full)
	if strings.Contains(want, "hunter2") || strings.Contains(want, "opaqueCredential") || strings.Contains(want, "StreamAbCd") {
		t.Fatalf("the test's text is not fully redacted by trust.Redact: %q", want)
	}
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			writeFileT(t, filepath.Join(f.dir, ".env.example"), "GH="+token+"\npassword = "+pass+"\nAuthorization: Bearer "+cred+"\n")
			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "r", Name: "read_file", Input: `{"path":".env.example"}`}}},
				modeltest.Turn{Deltas: deltas},
			)
			evs := &events{}
			res := f.run(t, RunRequest{Prompt: "what is in .env.example?"}, TaskIO{Events: evs, Approver: &answer{opt: "allow_once"}})
			if res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			var streamed []string
			for _, e := range evs.ofType("text") {
				streamed = append(streamed, e.Delta)
			}
			got := strings.Join(streamed, "")
			if got != want {
				t.Errorf("text events joined:\n %q\nwant the redacted text:\n %q", got, want)
			}
			if len(streamed) < 4 {
				t.Errorf("%d text events: redaction must still stream, not hold the whole answer", len(streamed))
			}
			for _, piece := range []string{token, "StreamAbCd", "eamAbCdEfGhIjK", pass, "hunter2", cred, "opaqueCredential", "0123456789"} {
				for _, d := range streamed {
					if strings.Contains(d, piece) {
						t.Errorf("a text event carries %q: %q", piece, d)
					}
				}
			}
			if res.Text != want {
				t.Errorf("Result.Text = %q, want %q", res.Text, want)
			}
			done := evs.ofType("done")
			if len(done) != 1 || done[0].Text != want {
				t.Errorf("done events %+v, want one with the redacted text", done)
			}
		})
	}
}
