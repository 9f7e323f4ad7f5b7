//go:build unix

package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// guard is this process's connection to its guard process.
var guard struct {
	mu  sync.Mutex
	w   *os.File // write end of the guard's stdin; nil until started
	cmd *exec.Cmd
}

// guardWatch registers a process group with the guard, starting the guard
// on first use. It reports whether a guard is watching.
func guardWatch(pgid int, grace time.Duration) bool {
	if !hookInstalled.Load() {
		return false
	}
	guard.mu.Lock()
	defer guard.mu.Unlock()
	line := fmt.Sprintf("+%d %d\n", pgid, grace.Milliseconds())
	if guard.w != nil {
		if _, err := guard.w.WriteString(line); err == nil {
			return true
		}
		guard.w.Close() // the guard died: start another
		guard.w = nil
	}
	if err := startGuardLocked(); err != nil {
		return false
	}
	_, err := guard.w.WriteString(line)
	return err == nil
}

// guardForget tells the guard a process group was reaped.
func guardForget(pgid int) {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.w != nil {
		guard.w.WriteString(fmt.Sprintf("-%d\n", pgid))
	}
}

func startGuardLocked() error {
	exe, err := helperExe()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe() // close-on-exec: children never hold the guard's pipe open
	if err != nil {
		return err
	}
	cmd := &exec.Cmd{Path: exe, Args: []string{exe, guardArg}, Stdin: r, Stderr: os.Stderr,
		// Its own group: a Ctrl-C at our terminal must not take the guard first.
		// No parent-death signal: the pipe's end is the trigger. A signal on
		// our death could kill the guard before its runtime installed its
		// handler, or be handled before it read the groups we registered
		// just before dying; both left a run_command's forks running.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return err
	}
	// Not waited for: it lives as long as we do (a goroutine in Wait would
	// outlive every test). A guard that died is reaped when replaced.
	if guard.cmd != nil {
		var ws syscall.WaitStatus
		syscall.Wait4(guard.cmd.Process.Pid, &ws, syscall.WNOHANG, nil)
	}
	guard.w, guard.cmd = w, cmd
	return nil
}

// runGuard reads "+PGID GRACE_MS" and "-PGID" lines on stdin. When stdin
// ends (agentls exited or was killed) or a termination signal arrives, it
// sends SIGTERM to every group still registered, SIGKILL after their grace
// period, and exits.
func runGuard() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	var mu sync.Mutex
	groups := map[int]time.Duration{}
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			switch {
			case strings.HasPrefix(line, "+"):
				f := strings.Fields(line[1:])
				if len(f) == 2 {
					pgid, err1 := strconv.Atoi(f[0])
					ms, err2 := strconv.Atoi(f[1])
					if err1 == nil && err2 == nil && pgid > 1 {
						groups[pgid] = time.Duration(ms) * time.Millisecond
					}
				}
			case strings.HasPrefix(line, "-"):
				if pgid, err := strconv.Atoi(line[1:]); err == nil {
					delete(groups, pgid)
				}
			}
			mu.Unlock()
		}
	}()
	select {
	case <-eof:
	case <-sigs:
		// Read what agentls wrote before the signal: if agentls is gone the
		// pipe ends at once; if not, act on what is known after a moment.
		select {
		case <-eof:
		case <-time.After(500 * time.Millisecond):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var grace time.Duration
	for pgid, g := range groups {
		syscall.Kill(-pgid, syscall.SIGTERM)
		grace = max(grace, g)
	}
	deadline := time.Now().Add(grace)
	for len(groups) > 0 && time.Now().Before(deadline) {
		for pgid := range groups {
			if syscall.Kill(-pgid, 0) == syscall.ESRCH {
				delete(groups, pgid)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	for pgid := range groups {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return 0
}
