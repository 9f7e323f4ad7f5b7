package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/proc"
)

// workspaceEnvKeys is all a workspace-tier server inherits from agentls.
// A repo's server must not read our API keys or tokens from the environment
// unless the user approved a card that named them.
var workspaceEnvKeys = []string{"PATH", "HOME", "USER", "LANG", "TERM", "TMPDIR", "SHELL"}

// serverEnv is the environment a server runs with: all of agentls's for the
// user tier, the minimal base for the workspace tier, plus its declared env.
func serverEnv(s config.Server) ([]string, error) {
	declared := map[string]string{}
	if len(s.Env) > 0 {
		var err error
		if declared, err = s.ExpandedEnv(os.LookupEnv); err != nil {
			return nil, fmt.Errorf("env: %w", err)
		}
	}
	var base []string
	if s.Origin == config.User {
		base = os.Environ()
	} else {
		for _, k := range workspaceEnvKeys {
			if v, ok := os.LookupEnv(k); ok {
				base = append(base, k+"="+v)
			}
		}
	}
	env := make([]string, 0, len(base)+len(declared))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := declared[k]; !over {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(declared))
	for k := range declared {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+declared[k])
	}
	return env, nil
}

// lookPath resolves command the way exec would, but against the server's own
// PATH and cwd, so "not found" is reported before anything is spawned.
// Relative PATH entries are skipped: a repo must not be able to plant "./git".
func lookPath(command string, env []string, cwd string) (string, error) {
	if command == "" {
		return "", errors.New("command is empty: set command to the program to run")
	}
	if strings.ContainsAny(command, pathSeparators) {
		p := command
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		found, err := executable(p, env)
		if err != nil {
			return "", fmt.Errorf("command %q: %w", command, err)
		}
		return found, nil
	}
	path := envPath(env)
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if found, err := executable(filepath.Join(dir, command), env); err == nil {
			return found, nil
		}
	}
	return "", fmt.Errorf("command %q not found in $PATH (%s): install it or give its absolute path", command, path)
}

// process is one spawned server: its pipes, its stderr tail and its end.
// It runs in a process group of its own (see internal/proc: a parent-death
// signal on Linux, the guard in case we are killed, a Job object on
// Windows).
type process struct {
	cmd    *exec.Cmd
	group  *proc.Group
	stdin  *os.File // our write end of the server's stdin
	stdout *os.File // our read end of the server's stdout
	stderr *os.File // our read end of the server's stderr
	tail   *ring

	exited     chan struct{} // closed once the child was reaped
	ctx        context.Context
	cancel     context.CancelFunc // cancelled when the child exits
	stderrDone chan struct{}
	waitErr    error // valid once exited is closed

	stopOnce sync.Once
}

// spawn starts the server of s with env, without a shell, in its cwd,
// confined by the kernel when its sandbox mode asks for it (see confine).
func spawn(s config.Server, env []string, grace time.Duration, tail *ring) (*process, error) {
	path, err := lookPath(s.Command, env, s.Cwd)
	if err != nil {
		return nil, err
	}
	argv := append([]string{s.Command}, s.Args...)
	exe, argv, env, err := confine(s, path, argv, env)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		closeAll(files)
		return nil, fmt.Errorf("pipes: %w", err)
	}
	p := &process{stdin: inW, stdout: outR, stderr: errR, tail: tail,
		exited: make(chan struct{}), stderrDone: make(chan struct{})}
	cmd := &exec.Cmd{Path: exe, Args: argv, Dir: s.Cwd, Env: env, Stdin: inR, Stdout: outW, Stderr: errW}
	p.cmd = cmd
	// An unconfined server may detach a daemon (setsid); the reaper ends it
	// with the server. A confined one cannot leave its group at all.
	p.group, err = proc.Start(cmd, proc.Options{Grace: grace, Reap: exe == path})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %q: %w", path, err)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(p.stderrDone)
		io.Copy(tail, errR)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
		p.cancel()
	}()
	return p, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// hasExited reports whether the child was reaped already.
func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitDescription says how the child ended; call after exited is closed.
func (p *process) exitDescription() string {
	var ee *exec.ExitError
	if !errors.As(p.waitErr, &ee) {
		if p.waitErr != nil {
			return p.waitErr.Error()
		}
		return "exit status 0"
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
	}
	return "exit status " + strconv.Itoa(ee.ExitCode())
}

// stop ends the server: close its stdin, SIGTERM its group, SIGKILL after the
// grace period, and reap it. Safe to call more than once and concurrently.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		// Also reaches grandchildren left in the group after the server exited.
		p.group.Stop(p.exited)
		<-p.exited
		p.group.Release()
		p.drainStderr()
		p.stderr.Close()
		<-p.stderrDone
	})
}

// drainStderr gives the stderr reader a moment to take in what an exited
// server wrote last (usually why it died) before the tail is quoted. Bounded:
// a grandchild that escaped the group may hold stderr open.
func (p *process) drainStderr() {
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
	}
}

func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}
