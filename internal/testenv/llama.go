package testenv

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// LlamaDir is where scripts/llama-server.sh keeps llama-server and its
// model: $AGENTLS_LLAMA, else ~/.cache/agentls-llama.
func LlamaDir() string {
	if d := os.Getenv("AGENTLS_LLAMA"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agentls-llama")
}

// LlamaServer starts llama.cpp's real llama-server (built by
// scripts/llama-server.sh, with its tiny hand-set Qwen2 model) on a free
// loopback port with a context of ctx tokens and --jinja (tool calls), and
// stops it when the test ends. It returns the base URL, ending in /v1.
func LlamaServer(t testing.TB, ctx int) string {
	t.Helper()
	how := "run scripts/llama-server.sh build (scripts/setup.sh does)"
	bin := filepath.Join(LlamaDir(), "bin", "llama-server")
	model := filepath.Join(LlamaDir(), "tiny-qwen2.gguf")
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			Missing(t, p, how)
		}
	}
	var lastOut string
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		out := &SyncBuffer{}
		cmd := exec.Command(bin, "-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
			"--jinja", "-c", strconv.Itoa(ctx), "-np", "1", "-t", "1", "--no-webui")
		cmd.Stdout, cmd.Stderr = out, out
		g, err := proc.Start(cmd, proc.Options{Grace: 3 * time.Second})
		if err != nil {
			t.Fatalf("starting llama-server: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			g.Stop(exited)
			<-exited
			g.Release()
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		deadline := time.After(120 * time.Second)
		for up := false; !up; {
			select {
			case <-exited:
				lastOut = out.String()
				g.Release()
				up = true
			case <-deadline:
				stop()
				t.Fatalf("llama-server did not become ready within 120s; output:\n%s", out.String())
			case <-time.After(50 * time.Millisecond):
				resp, err := http.Get(base + "/health")
				if err != nil {
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					t.Cleanup(stop)
					return base + "/v1"
				}
			}
		}
		// It exited before it was ready (the port was taken meanwhile): try another.
	}
	t.Fatalf("llama-server would not start; last output:\n%s", lastOut)
	return ""
}
