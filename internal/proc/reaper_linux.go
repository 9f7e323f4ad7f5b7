package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A process group holds only the processes that stay in it: a daemon
// detached by a double fork under setsid leaves the group, the group's
// kill misses it, and it is reparented to init, out of anyone's reach. The
// reaper is a process between the group's leader and the command: a child
// subreaper (PR_SET_CHILD_SUBREAPER), so whatever the command starts and
// orphans is reparented to it instead, and so stays its descendant, which
// it can find (/proc) and end.

// reaperWraps rewrites cmd to start under the reaper, when this binary can
// be one (Hook was called), and reports whether it did.
func reaperWraps(cmd *exec.Cmd, grace time.Duration) bool {
	if !hookInstalled.Load() {
		return false
	}
	exe, err := helperExe()
	if err != nil {
		return false
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir == "" {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	cmd.Args = append([]string{exe, reaperArg, strconv.FormatInt(grace.Milliseconds(), 10), path}, cmd.Args...)
	cmd.Path = exe
	return true
}

// runReaper is the reaper's main: args are GRACE_MS PATH ARGV0 ARGS...
// It starts the command with its own standard files, environment and
// folder, and waits. When the command exits, it kills everything left
// below it at once; when it is asked to stop (SIGTERM, SIGINT, SIGHUP:
// Group.Stop, the guard, or its parent-death signal when agentls dies) it
// passes SIGTERM to every process below it, gives the command three
// quarters of the grace period (the rest is the margin before the group's
// SIGKILL, which would take the reaper too) and then kills everything
// left. It exits only when nothing is left below it, with the command's
// status (killed by the same signal, or the same exit code).
func runReaper(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "agentls: reaper: usage: "+reaperArg+" GRACE_MS PATH ARGV0 [ARGS...]")
		return 2
	}
	ms, err := strconv.Atoi(args[0])
	if err != nil || ms < 0 {
		fmt.Fprintf(os.Stderr, "agentls: reaper: grace %q is not a number of milliseconds\n", args[0])
		return 2
	}
	grace := time.Duration(ms) * time.Millisecond
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: reaper: PR_SET_CHILD_SUBREAPER: %v\n", err)
		return 127
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// The command's parent-death signal fires when this thread ends: it
	// never does before the process.
	runtime.LockOSThread()
	pid, err := syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{Env: os.Environ(),
		Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls: reaper: start %s: %v\n", args[1], err)
		return 127
	}
	// This process holds no pipe of the command's: an output reader sees
	// its end when the command's processes are gone, not later.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		unix.Dup2(int(null.Fd()), 0)
		unix.Dup2(int(null.Fd()), 1)
		null.Close()
	}

	// The one place that reaps: the command, and every orphan handed over.
	exited := make(chan syscall.WaitStatus, 1)
	empty := make(chan struct{})
	go func() {
		for {
			var ws syscall.WaitStatus
			p, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil { // ECHILD: nothing is left below us
				close(empty)
				return
			}
			if p == pid {
				exited <- ws
			}
		}
	}()

	var status syscall.WaitStatus
	have := false
	select {
	case status = <-exited:
		have = true
	case <-stop:
		signalBelow(syscall.SIGTERM)
		t := time.NewTimer(grace * 3 / 4)
		select {
		case status = <-exited:
			have = true
		case <-t.C:
		}
		t.Stop()
	}
	for done := false; !done; {
		signalBelow(syscall.SIGKILL)
		select {
		case <-empty:
			done = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !have {
		status = <-exited // sent before the reaping ended
	}
	if status.Signaled() {
		sig := status.Signal()
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // a signal that does not end a process
		return 128 + int(sig)
	}
	return status.ExitStatus()
}

// signalBelow sends sig to every process below this one, as /proc shows
// them now (children first found, then theirs).
func signalBelow(sig syscall.Signal) {
	kids := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(st[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(string(f[1])); err == nil {
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	queue := append([]int(nil), kids[os.Getpid()]...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		syscall.Kill(p, sig)
		queue = append(queue, kids[p]...)
	}
}
