package server

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// Editors log a language server's stderr as errors (Neovim's lsp.log marks
// every line [ERROR]), so `agentls serve` keeps notes like "MCP server
// 'repofs': connecting" in window/logMessage and writes to stderr only real
// problems: here, the config error, once.
func TestServeWritesOnlyProblemsToStderr(t *testing.T) {
	e := newEnv(t, "[agent]\ntiemout = \"5s\"\n")
	files := filepath.Join(t.TempDir(), "repo-fs-stderr-marker")
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
	cmd := exec.Command(testenv.Agentls(t), "serve")
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), "AGENTLS_CONFIG="+e.config, "XDG_STATE_HOME="+e.state)
	var stderr bytes.Buffer // read only after Wait returned
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := connect(t, pipes{stdout, stdin})
	go func() {
		_ = cmd.Wait()
		c.code <- cmd.ProcessState.ExitCode()
	}()
	c.setAnswer(answerWith("agent/requestApproval", requestApprovalResult{Outcome: "selected", OptionID: "allow_once"}))
	c.initialize(e.root, caps(true, false, false))
	c.waitFor("the config error in the log", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "tiemout")
	})
	c.waitFor("the server's start as an Info log message", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "MCP server 'repofs': ") &&
			strings.Contains(string(m.Params), `"type":3`)
	})
	c.waitState("repofs", "connected")
	c.mustCall("shutdown", nil, nil)
	c.notify("exit", nil)
	select {
	case code := <-c.code:
		c.code <- code // for the client's cleanup
	case <-time.After(waitLimit):
		t.Fatal("agentls did not exit")
	}
	testenv.WaitNoProcesses(t, files, 10*time.Second)

	var lines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "agentls: config: ") || !strings.Contains(lines[0], "tiemout") {
		t.Errorf("stderr of agentls serve = %q, want only the config error, once", lines)
	}
}
