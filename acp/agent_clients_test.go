package acp

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// The editor configs in clients/ start the real agent: the command and
// args they give, run with agentls on PATH, answer initialize as agentls.
func TestClientConfigsStartTheAgent(t *testing.T) {
	bin := testenv.Agentls(t)
	// The editor looks the command up on its PATH: put the agentls under test first.
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, file := range []string{"clients/zed/settings.json", "clients/jetbrains/acp.json"} {
		t.Run(file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), file))
			if err != nil {
				t.Fatal(err)
			}
			var cfg struct {
				AgentServers map[string]struct {
					Command string            `json:"command"`
					Args    []string          `json:"args"`
					Env     map[string]string `json:"env"`
				} `json:"agent_servers"`
			}
			if err := json.Unmarshal(raw, &cfg); err != nil {
				t.Fatalf("%s is not valid JSON: %v", file, err)
			}
			entry, ok := cfg.AgentServers["agentls"]
			if !ok {
				t.Fatalf("%s has no agent_servers.agentls", file)
			}
			cmd := exec.Command(entry.Command, entry.Args...)
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
			cmd.Dir = t.TempDir()
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatalf("start %s %v: %v", entry.Command, entry.Args, err)
			}
			// Read the answer before Wait: Wait closes the pipe once the
			// process exits, and agentls exits as soon as stdin ends, so a
			// Wait running beside the read could close it before the line
			// was read (the answer then reads as "").
			line := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				sc := bufio.NewScanner(out)
				sc.Scan()
				line <- sc.Text()
				io.Copy(io.Discard, out)
				done <- cmd.Wait()
			}()
			var first string
			select {
			case first = <-line:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("%s %v did not answer initialize in 30 s", entry.Command, entry.Args)
			}
			var res struct {
				Result initializeResponse `json:"result"`
			}
			if json.Unmarshal([]byte(first), &res) != nil || res.Result.AgentInfo.Name != "agentls" {
				t.Errorf("%s %v did not answer initialize as agentls: %q", entry.Command, entry.Args, first)
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("agentls acp did not exit when stdin ended")
			}
		})
	}
}
