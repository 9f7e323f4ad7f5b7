package agent

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/agentls/agentls/mcp"
)

// killGrace is how long a command's process group gets between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// procResult is how a command ended.
type procResult struct {
	Output    string
	Cut       int // bytes of output dropped past the cap
	ExitCode  int
	TimedOut  bool
	Cancelled bool
}

// startGate is the leader's script: read one line from fd 3, run the
// command ("$@") only if it says go.
const startGate = `read -r gate <&3 && [ "$gate" = go ] || exit 125; exec 3<&-; exec "$@"`

// runProcess runs argv in its own process group with stdout and stderr on
// one pipe, capped at max bytes. On timeout or cancel the group gets SIGTERM,
// then SIGKILL; when the leader exits, whatever it left running in its group
// (`sleep 100 &`) is killed too, so no command outlives its tool call.
func runProcess(ctx context.Context, argv []string, dir string, env []string, timeout time.Duration, max int) (procResult, error) {
	if max <= 0 {
		max = 64 << 10
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return procResult{}, err
	}
	defer pr.Close()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		pw.Close()
		return procResult{}, err
	}
	// The command starts behind a gate: the group's leader is a shell that
	// waits for "go" on fd 3 before it execs the command, and agentls writes
	// "go" only once the guard knows the group. Without the gate a command
	// could fork (`sleep 777 &`) before the group was registered, and an
	// agentls killed in that window would leave the fork running. If agentls
	// dies before the go, the gate reads end of file and exits: nothing ran.
	gateR, gateW, err := os.Pipe()
	if err != nil {
		pw.Close()
		return procResult{}, err
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", startGate, "sh", path}, argv[1:]...)...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.ExtraFiles = []*os.File{gateR}
	// Pdeathsig kills the leader if agentls dies without cleaning up; it is
	// tied to the spawning OS thread, so spawn from a locked thread.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	pw.Close()
	gateR.Close()
	if err != nil {
		gateW.Close()
		return procResult{}, err
	}
	pgid := cmd.Process.Pid
	// The guard ends the group if agentls is killed before it can.
	defer mcp.WatchGroup(pgid, killGrace)()
	gateW.WriteString("go\n")
	gateW.Close()

	var out []byte
	cut := 0
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := pr.Read(buf)
			if keep := min(n, max-len(out)); keep > 0 {
				out = append(out, buf[:keep]...)
				cut += n - keep
			} else {
				cut += n
			}
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()

	res := procResult{}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.Cancelled = true
	}
	if res.TimedOut || res.Cancelled {
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(killGrace):
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
	// Reap what the leader left behind in its group.
	syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-readDone:
	case <-time.After(killGrace):
		// Something outside the group still holds the pipe: stop reading.
		pr.Close()
		<-readDone
	}
	res.Output, res.Cut = string(out), cut
	if st := cmd.ProcessState; st != nil {
		res.ExitCode = st.ExitCode()
	}
	return res, nil
}
