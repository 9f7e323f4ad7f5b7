//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// endGrace is "within a few seconds": how long agentls and its MCP servers
// may take to be gone once their client went away.
const endGrace = 5 * time.Second

// An editor that dies without a word (kill -9, an extension host that
// crashes) or that closes agentls's stdin without the LSP exit: agentls
// serve and agentls acp must end, reaping their MCP servers, within a few
// seconds. The editor here is a real shell that starts agentls as its child
// over pipes the test holds, so killing the shell leaves agentls's stdin
// open: only the parent's death can tell agentls.
func TestAgentlsEndsWhenItsClientGoesAway(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := testenv.Agentls(t)
	for _, mode := range []string{"serve", "acp"} {
		for _, how := range []string{"parent killed", "stdin closed"} {
			t.Run(mode+"/"+how, func(t *testing.T) {
				marker := filepath.Join(t.TempDir(), "everything-marker")
				tmp, ws, cfgPath := stdioWorkspace(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\", %q]\n", everything, marker))
				inR, inW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				outR, outW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				// The shell waits for agentls (no exec), like an editor.
				editor := exec.Command("sh", "-c", `"$0" "$@"; echo "agentls ended" >&2`, bin, mode, "--config", cfgPath)
				editor.Dir = ws
				editor.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
				var stderr testenv.SyncBuffer
				editor.Stdin, editor.Stdout, editor.Stderr = inR, outW, &stderr
				if err := editor.Start(); err != nil {
					t.Fatal(err)
				}
				inR.Close()
				outW.Close()
				waited := make(chan struct{})
				go func() { editor.Wait(); close(waited) }()
				go io.Copy(io.Discard, outR) // agentls's replies: read, never block it
				t.Cleanup(func() {
					inW.Close()
					for _, p := range testenv.ProcessesMatching(cfgPath) {
						syscall.Kill(p.PID, syscall.SIGKILL)
					}
					syscall.Kill(editor.Process.Pid, syscall.SIGKILL)
					<-waited
					outR.Close()
				})
				send := func(body string) {
					msg := body + "\n"
					if mode == "serve" {
						msg = fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
					}
					if _, err := io.WriteString(inW, msg); err != nil {
						t.Fatalf("write to agentls: %v", err)
					}
				}
				if mode == "serve" {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://%s","capabilities":{}}}`, ws))
					send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
					send(`{"jsonrpc":"2.0","id":2,"method":"agent/servers","params":{}}`)
				} else {
					send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
					send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, ws))
				}
				deadline := time.Now().Add(60 * time.Second)
				for len(testenv.ProcessesMatching(marker)) == 0 {
					if time.Now().After(deadline) {
						t.Fatalf("the MCP server never started; stderr:\n%s", stderr.String())
					}
					time.Sleep(50 * time.Millisecond)
				}
				agentls := testenv.ProcessesMatching(cfgPath)
				if len(agentls) < 2 { // the shell and agentls
					t.Fatalf("agentls is not running: %+v", agentls)
				}
				if how == "parent killed" {
					if err := syscall.Kill(editor.Process.Pid, syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
				} else {
					inW.Close()
				}
				testenv.WaitNoProcesses(t, cfgPath, endGrace)
				testenv.WaitNoProcesses(t, marker, endGrace)
				if how == "parent killed" && !strings.Contains(stderr.String(), "is gone") {
					t.Errorf("agentls did not say why it ended; stderr:\n%s", stderr.String())
				}
			})
		}
	}
}

// An editor that dies takes its ends of agentls's stdout and stderr with
// it. The line agentls writes to say why it ends (and any late reply) must
// then fail, not kill agentls by SIGPIPE half way through closing: once it
// has ended, its MCP endpoint (the published file, the socket, the token
// file) is gone.
func TestServeClosesItsEndpointWhenItsEditorDiesWithItsPipes(t *testing.T) {
	bin := testenv.Agentls(t)
	tmp, ws, cfgPath := stdioWorkspace(t, "[serve]\nmcp = true\n")
	endpoints := filepath.Join(tmp, "state", "agentls", "mcp-serve")
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	editor := exec.Command("sh", "-c", `"$0" "$@"`, bin, "serve", "--config", cfgPath)
	editor.Dir = ws
	editor.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	editor.Stdin, editor.Stdout, editor.Stderr = inR, outW, errW
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	waited := make(chan struct{})
	go func() { editor.Wait(); close(waited) }()
	go io.Copy(io.Discard, outR)
	var stderr testenv.SyncBuffer
	go io.Copy(&stderr, errR)
	t.Cleanup(func() {
		inW.Close()
		for _, p := range testenv.ProcessesMatching(cfgPath) {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
		syscall.Kill(editor.Process.Pid, syscall.SIGKILL)
		<-waited
	})
	send := func(body string) {
		if _, err := fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatalf("write to agentls: %v", err)
		}
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://%s","capabilities":{}}}`, ws))
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if published, _ := filepath.Glob(filepath.Join(endpoints, "*.json")); len(published) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentls never published its MCP endpoint; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Nobody reads agentls's output any more, then its editor dies.
	outR.Close()
	errR.Close()
	if err := syscall.Kill(editor.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.WaitNoProcesses(t, cfgPath, endGrace)
	if left, _ := filepath.Glob(filepath.Join(endpoints, "*")); len(left) > 0 {
		t.Errorf("agentls ended but left its MCP endpoint behind: %v", left)
	}
}
