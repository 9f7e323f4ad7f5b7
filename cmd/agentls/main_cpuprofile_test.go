package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// readProfile says whether path holds a pprof CPU profile: a gzipped
// protocol buffer whose string table names the sample types pprof writes
// ("samples"/"count", "cpu"/"nanoseconds").
func readProfile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no CPU profile: %v", err)
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the CPU profile is not gzipped as pprof writes it: %v", err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("reading the CPU profile: %v", err)
	}
	for _, s := range []string{"samples", "cpu", "nanoseconds"} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("the CPU profile's string table lacks %q: not a pprof CPU profile", s)
		}
	}
}

func TestCPUProfileIsWrittenWhenAsked(t *testing.T) {
	bin := testenv.Agentls(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	cmd := exec.Command(bin, "version")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTLS_CPUPROFILE="+prof)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "agentls ") {
		t.Fatalf("agentls version with AGENTLS_CPUPROFILE: %v\n%s", err, out)
	}
	readProfile(t, prof)
}

// serve ends on SIGTERM by returning from its command: the profile is
// stopped and flushed on that path too.
func TestCPUProfileIsCompleteAfterSIGTERM(t *testing.T) {
	bin := testenv.Agentls(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	cmd := exec.Command(bin, "serve")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTLS_CPUPROFILE="+prof, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// An answer to initialize says the server is serving, so its signal
	// handler is in place: SIGTERM now is the shutdown path, not a kill.
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	r := bufio.NewReader(stdout)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "Content-Length:") {
		t.Fatalf("no answer to initialize: %q, %v\n%s", line, err, stderr.String())
	}
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, r); close(drained) }()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-drained
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("agentls serve died of %v instead of shutting down: %v\n%s", ws.Signal(), err, stderr.String())
	}
	readProfile(t, prof)
}

func TestCPUProfileToAnUnwritablePathIsAClearError(t *testing.T) {
	bin := testenv.Agentls(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "version")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTLS_CPUPROFILE="+filepath.Join(dir, "no-such-folder", "cpu.pprof"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("agentls version with an unwritable AGENTLS_CPUPROFILE: %v, want exit 1", err)
	}
	if !strings.Contains(stderr.String(), "AGENTLS_CPUPROFILE") || !strings.Contains(stderr.String(), "expected a file") {
		t.Errorf("stderr = %q, want it to name AGENTLS_CPUPROFILE and what is expected", stderr.String())
	}
}
