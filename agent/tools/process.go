package tools

import (
	"context"
	"os"
	"os/exec"
	"time"

	"github.com/agentls/agentls/internal/proc"
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

// runProcess runs argv in its own process group (see internal/proc) with
// stdout and stderr on one pipe, capped at max bytes. On timeout or cancel
// the group gets SIGTERM, then SIGKILL; when the leader exits, whatever it
// left running in its group (`sleep 100 &`) is killed too, so no command
// outlives its tool call.
func runProcess(ctx context.Context, argv []string, dir string, env []string, timeout time.Duration, max int) (procResult, error) {
	return runStarted(ctx, func(out *os.File) (started, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = out, out
		// Gated: the command runs only once the guard knows its group.
		// Without the gate a command could fork (`sleep 777 &`) before the
		// group was registered, and an agentls killed in that window would
		// leave the fork running. Reaped: a daemon it detaches (setsid)
		// ends with it too.
		g, err := proc.Start(cmd, proc.Options{Grace: killGrace, Gated: true, Reap: true})
		if err != nil {
			return started{}, err
		}
		return started{group: g, wait: func() int { cmd.Wait(); return cmd.ProcessState.ExitCode() }}, nil
	}, timeout, max)
}

// started is a command running in its own process group: wait blocks
// until its leader exits and returns its exit code.
type started struct {
	group interface {
		Stop(exited <-chan struct{})
		Release()
	}
	wait func() int
}

// runStarted runs what start starts with its stdout and stderr on out, as
// runProcess describes.
func runStarted(ctx context.Context, start func(out *os.File) (started, error), timeout time.Duration, max int) (procResult, error) {
	if max <= 0 {
		max = 64 << 10
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return procResult{}, err
	}
	defer pr.Close()
	st, err := start(pw)
	pw.Close()
	if err != nil {
		return procResult{}, err
	}
	g := st.group

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
	code := 0
	go func() {
		code = st.wait()
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
		g.Stop(exited)
		<-exited
	}
	// Reap what the leader left behind in its group.
	g.Release()
	select {
	case <-readDone:
	case <-time.After(killGrace):
		// Something outside the group still holds the pipe: stop reading.
		pr.Close()
		<-readDone
	}
	res.Output, res.Cut, res.ExitCode = string(out), cut, code
	return res, nil
}
