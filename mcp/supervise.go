package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// supervisorArg is the hidden first argument that turns this binary into a
// server's supervisor.
const supervisorArg = "__agentls_mcp_supervise"

var hookInstalled atomic.Bool

// SupervisorHook must be the first call in main (and in TestMain of any test
// binary that starts servers). Started with the hidden supervisor argument,
// it runs the supervisor and exits; otherwise it notes that this binary can
// supervise and returns at once.
//
// Why a supervisor: the parent-death signal reaches only our direct child,
// so when agentls is killed with SIGKILL the grandchildren of a server
// started through npx or a shell would live on. The supervisor outlives us
// by a moment and kills the server's whole process group when we are gone.
// Without the hook, servers are spawned directly (own group, parent-death
// signal), which covers everything but grandchildren after a SIGKILL.
func SupervisorHook() {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		os.Exit(supervise(os.Args[2:]))
	}
	hookInstalled.Store(true)
}

// supervisorBinary is this executable when it can act as a supervisor.
func supervisorBinary() (string, bool) {
	if !hookInstalled.Load() {
		return "", false
	}
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	return exe, true
}

// supervise runs as: <self> supervisorArg GRACE_MS PATH ARGV0 ARGS...
// with the server's stdin, stdout, stderr as its own and the read end of the
// guard pipe as fd 3. It starts the server in a new process group, then:
//   - the server exits: kill what is left of its group, exit with its code
//     (128+N for signal N);
//   - the guard pipe ends (agentls closed it or died) or SIGTERM/SIGINT/SIGHUP
//     arrives: SIGTERM the group, SIGKILL it after the grace period, exit.
func supervise(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "agentls supervisor: expected GRACE_MS PATH ARGV0 [ARGS...]")
		return 2
	}
	graceMs, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls supervisor: bad grace %q: %v\n", args[0], err)
		return 2
	}
	grace := time.Duration(graceMs) * time.Millisecond
	guard := os.NewFile(3, "guard")
	syscall.CloseOnExec(3) // the server must not hold our guard open

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	cmd := &exec.Cmd{Path: args[1], Args: args[2:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	runtime.LockOSThread() // the server's Pdeathsig follows this thread
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: start %s: %v\n", args[1], err)
		return 127
	}
	// Only the server talks on stdin/stdout: holding them would delay the
	// EOF that tells agentls the server is gone.
	os.Stdin.Close()
	os.Stdout.Close()
	pgid := cmd.Process.Pid

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	parentGone := make(chan struct{})
	if guard != nil {
		go func() {
			io.Copy(io.Discard, guard)
			close(parentGone)
		}()
	}

	var werr error
	select {
	case werr = <-done:
		syscall.Kill(-pgid, syscall.SIGKILL)
	case <-parentGone:
		werr = reapGroup(pgid, grace, done)
	case <-sigs:
		werr = reapGroup(pgid, grace, done)
	}
	return exitCode(werr)
}

// reapGroup is SIGTERM to the group, then SIGKILL after grace.
func reapGroup(pgid int, grace time.Duration, done <-chan error) error {
	syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-done:
		syscall.Kill(-pgid, syscall.SIGKILL)
		return err
	case <-t.C:
		syscall.Kill(-pgid, syscall.SIGKILL)
		return <-done
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
