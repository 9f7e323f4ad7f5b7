package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunGeminiTakesEveryToolSchema: `agentls run` with a Gemini model
// (through Google's OpenAI-compatible endpoint, the fake playing Gemini)
// and the real server-filesystem, whose schemas carry $schema and
// additionalProperties, which Gemini refuses (so did every built-in). The
// first request is taken; the model reads two files through the
// translated schema of read_multiple_files (a list with minItems), and
// the real server gets the arguments as the model sent them.
func TestRunGeminiTakesEveryToolSchema(t *testing.T) {
	e := newRunEnv(t, "openai", `"fs__read_multiple_files" = "allow"`)
	cfg, err := os.ReadFile(e.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg = []byte(strings.Replace(string(cfg), `name = "fake-model"`, `name = "gemini-2.5-flash"`, 1))
	if err := os.WriteFile(e.config, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(e.ws, "a.txt"), filepath.Join(e.ws, "b.txt")
	for f, text := range map[string]string{a: "alpha\n", b: "beta\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := fmt.Sprintf(`{"paths":[%q,%q]}`, a, b)
	e.model.Script(modeltest.Turn{Text: "Let me read them.", ToolCalls: []modeltest.ToolCall{{ID: "call_read", Name: "fs__read_multiple_files", Input: args}}},
		modeltest.Turn{Text: "Alpha and beta."})
	code, stdout, stderr := e.run(t, "read a.txt and b.txt")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	reqs := e.model.ModelRequests("openai")
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2; stderr: %s", len(reqs), stderr)
	}
	for _, r := range reqs {
		if p := modeltest.ToolProblems(modeltest.GeminiTools, r.Body); len(p) > 0 {
			t.Errorf("Gemini would refuse the request:\n%s", strings.Join(p, "\n"))
		}
	}
	if names := reqs[0].ToolNames(); len(names) < 10 || !contains(names, "fs__read_multiple_files") || !contains(names, "read_file") {
		t.Errorf("tools offered: %v; want the built-ins and the server's", names)
	}
	trs := reqs[1].ToolResults()
	if len(trs) != 1 || trs[0].IsError || !strings.Contains(trs[0].Content, a+":\nalpha") || !strings.Contains(trs[0].Content, b+":\nbeta") {
		t.Errorf("tool results %+v; want both files, as the server reads them", trs)
	}
}

// TestRunOpenAITakesALongToolDescription: a server's tool whose
// description is 1,024 characters, as description_max_chars lets through;
// the "[MCP server ...]" prefix agentls adds ("[x]" now) made it longer than OpenAI takes, failing
// every request. The whole description is cut to 1,024 now.
func TestRunOpenAITakesALongToolDescription(t *testing.T) {
	e := newRunEnv(t, "openai", "")
	bin := testenv.GoBinary(t, "./internal/faultserver")
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp.servers.x]\ncommand = %q\nargs = [\"-long-description\", \"5000\", \"-marker\", %q]\n", bin, e.ws)
	f.Close()
	e.model.Script(modeltest.Turn{Text: "Hello."})
	code, stdout, stderr := e.run(t, "hi")
	if code != 0 || !strings.Contains(stdout, "Hello.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	reqs := e.model.ModelRequests("openai")
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	var body struct {
		Tools []struct {
			Function struct{ Name, Description string } `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(reqs[0].Body, &body)
	found := false
	for _, tool := range body.Tools {
		if tool.Function.Name == "x__verbose" {
			found = true
			if n := utf8.RuneCountInString(tool.Function.Description); n != 1024 || !strings.HasPrefix(tool.Function.Description, `[x] ddd`) {
				t.Errorf("x__verbose's description has %d characters (%.60q…); want the prefix and 1,024 in all", n, tool.Function.Description)
			}
		}
	}
	if !found {
		t.Errorf("x__verbose was not offered: %s", reqs[0].ToolNames())
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
