package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentls/agentls/config"
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
	if strings.Contains(command, "/") {
		p := command
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if err := isExecutable(p); err != nil {
			return "", fmt.Errorf("command %q: %w", command, err)
		}
		return p, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, command)
		if isExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q not found in $PATH (%s): install it or give its absolute path", command, path)
}

func isExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// process is one spawned server: its pipes, its stderr tail and its end.
// When this binary installed SupervisorHook, the child is our supervisor,
// which runs the server in a process group of its own and kills that group
// when we close the guard pipe or die; otherwise the child is the server,
// in its own group, with a parent-death signal.
type process struct {
	cmd        *exec.Cmd
	stdin      *os.File // our write end of the server's stdin
	stdout     *os.File // our read end of the server's stdout
	stderr     *os.File // our read end of the server's stderr
	guard      *os.File // supervisor only: closing it makes the supervisor reap
	tail       *ring
	supervised bool
	grace      time.Duration

	exited     chan struct{} // closed once the child was reaped
	ctx        context.Context
	cancel     context.CancelFunc // cancelled when the child exits
	stderrDone chan struct{}
	waitErr    error // valid once exited is closed

	stopOnce sync.Once
}

// spawn starts the server of s with env, without a shell, in its cwd.
func spawn(s config.Server, env []string, grace time.Duration, tail *ring) (*process, error) {
	path, err := lookPath(s.Command, env, s.Cwd)
	if err != nil {
		return nil, err
	}
	argv := append([]string{s.Command}, s.Args...)
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
	p := &process{stdin: inW, stdout: outR, stderr: errR, tail: tail, grace: grace,
		exited: make(chan struct{}), stderrDone: make(chan struct{})}
	cmd := &exec.Cmd{Dir: s.Cwd, Env: env, Stdin: inR, Stdout: outW, Stderr: errW}
	var guardR *os.File
	if exe, ok := supervisorBinary(); ok {
		var guardW *os.File
		guardR, guardW, err = os.Pipe()
		if err != nil {
			closeAll(files)
			return nil, fmt.Errorf("guard pipe: %w", err)
		}
		p.guard, p.supervised = guardW, true
		cmd.Path = exe
		cmd.Args = append([]string{exe, supervisorArg, strconv.FormatInt(grace.Milliseconds(), 10), path}, argv...)
		cmd.ExtraFiles = []*os.File{guardR}
		// SIGTERM makes the supervisor reap its group; SIGKILL would orphan it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	} else {
		cmd.Path, cmd.Args = path, argv
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	p.cmd = cmd
	// Pdeathsig fires when the thread that forked exits, not the process:
	// fork from a locked thread, which Go keeps alive after unlocking.
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	inR.Close()
	outW.Close()
	errW.Close()
	if guardR != nil {
		guardR.Close()
	}
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		if p.guard != nil {
			p.guard.Close()
		}
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
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok {
		return ee.Error()
	}
	if ws.Signaled() {
		return "killed by signal " + ws.Signal().String()
	}
	code := ws.ExitStatus()
	// The supervisor exits 128+N when the server died of signal N.
	if p.supervised && code > 128 && code < 128+65 {
		return "killed by signal " + syscall.Signal(code-128).String()
	}
	return "exit status " + strconv.Itoa(code)
}

// stop ends the server: close its stdin, SIGTERM its group, SIGKILL after the
// grace period, and reap it. Safe to call more than once and concurrently.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		if p.supervised {
			// The supervisor does SIGTERM, grace, SIGKILL on its server's group.
			p.guard.Close()
			if !p.waitFor(p.grace + 2*time.Second) {
				syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
				<-p.exited
			}
		} else {
			pgid := p.cmd.Process.Pid
			if !p.hasExited() {
				syscall.Kill(-pgid, syscall.SIGTERM)
				p.waitFor(p.grace)
			}
			// Also reaches grandchildren left in the group after the server exited.
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.exited
		}
		// A descendant that escaped the group may still hold stderr open.
		select {
		case <-p.stderrDone:
		case <-time.After(100 * time.Millisecond):
		}
		p.stderr.Close()
		<-p.stderrDone
	})
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
