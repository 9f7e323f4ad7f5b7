package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The spawner is the long-lived launcher behind [Spawn]: started once per
// policy (`LAUNCHER __agentls_spawner POLICY ROOT`, its control socket on
// fd 3), it starts each command with fork and exec, so a command costs no
// launcher start (a Go program's start was most of what confinement added
// to a short command).
//
// Every command still gets exactly what the one-shot launcher gives: the
// spawner prepares, ahead of the next request, a thread of its own that
// makes the command's private folder ROOT/N, sets no_new_privs, enters a
// new Landlock domain for POLICY plus that folder and installs the socket
// filter; the command is forked from that thread and inherits all three.
// The spawner's other threads are never restricted (they remove the
// folders), and a restricted thread ends with its command: Go terminates
// a thread whose locked goroutine returns, so it never runs anything else.
// Each command has its own domain: it cannot write, or read, another's
// folder, and on Landlock ABI 6 it cannot signal the spawner or another
// command. The spawner is not dumpable, so a command (same user) cannot
// ptrace it or read its memory.

// spawnerCtlFD is the spawner's control socket (SOCK_SEQPACKET).
const spawnerCtlFD = 3

// spawnRequest is one command, sent with three descriptors: its stdout,
// its stderr and the write end of its status pipe.
type spawnRequest struct {
	Path    string   `json:"path"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
	GraceMS int64    `json:"grace_ms"`
}

// spawnReply is a line on a command's status pipe: first the pid and
// folder (or why it could not start), then how it ended.
type spawnReply struct {
	Pid    int    `json:"pid,omitempty"`
	Tmp    string `json:"tmp,omitempty"`
	Err    string `json:"err,omitempty"`
	Exited bool   `json:"exited,omitempty"`
	Status int    `json:"status,omitempty"`
	// CPUMicros is the user and system time the command used.
	CPUMicros int64 `json:"cpu_us,omitempty"`
}

func writeReply(f *os.File, r spawnReply) {
	b, _ := json.Marshal(r)
	f.Write(append(b, '\n'))
}

type spawnJob struct {
	req                    spawnRequest
	stdout, stderr, status *os.File
}

type spawner struct {
	p      Policy
	root   string
	null   *os.File
	keeper int // socket to the group keeper (see runGroupKeeper)

	mu      sync.Mutex
	n       int
	closing bool
	kids    map[int]time.Duration // running leaders and their grace
	end     sync.Once

	// buf and oob receive requests: one thread reads at a time (the one
	// prepared for the next command).
	buf, oob []byte
}

// runSpawner is the spawner's main: args are POLICY ROOT.
func runSpawner(args []string) int {
	// The main goroutine keeps the main thread for itself: a goroutine
	// that confines its thread for a command must never get this one, the
	// thread the kernel takes for the whole process (its pid), which Go
	// parks for good instead of ending when its locked goroutine ends.
	// Confined, it shared the command's Landlock domain, and the command
	// could signal the launcher.
	runtime.LockOSThread()
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "agentls: spawner: usage: "+spawnerArg+" POLICY ROOT")
		return 2
	}
	var p Policy
	dec := json.NewDecoder(strings.NewReader(args[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: spawner: bad policy: %v\n", err)
		return launcherFailed
	}
	// Not dumpable: a command (same user, and on ABI < 6 able to reach
	// us) cannot ptrace the spawner or open its memory.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: spawner: %v\n", err)
		return launcherFailed
	}
	if _, err := unix.FcntlInt(spawnerCtlFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: spawner: no control socket: %v\n", err)
		return launcherFailed
	}
	// What agentls was started with stays here: a command gets the three
	// descriptors of its request and nothing else.
	if err := keepOnlyStdio(); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: spawner: %v\n", err)
		return launcherFailed
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls: spawner: %v\n", err)
		return launcherFailed
	}
	keeper, err := startGroupKeeper()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls: spawner: start the group keeper: %v\n", err)
		return launcherFailed
	}
	s := &spawner{p: p, root: args[1], null: null, keeper: keeper, kids: map[int]time.Duration{},
		buf: make([]byte, 1<<20), oob: make([]byte, unix.CmsgSpace(3*4))}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() { <-sigs; s.shutdown() }()

	s.prepare(nil)
	select {} // the prepared threads read the requests; shutdown exits
}

// next reads the control socket until a well-formed request arrives and
// returns it; on end of file (agentls closed the socket or is gone) it
// ends everything.
func (s *spawner) next() spawnJob {
	buf, oob := s.buf, s.oob
	for {
		n, oobn, flags, _, err := unix.Recvmsg(spawnerCtlFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 && oobn == 0 {
			// agentls is gone (or closed us): end every command, from an
			// unrestricted thread (this one cannot remove the folders).
			go s.shutdown()
			select {}
		}
		fds := receivedFDs(oob[:oobn])
		if len(fds) != 3 || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
			for _, fd := range fds {
				unix.Close(fd)
			}
			continue // no status pipe to answer on; agentls sees EOF
		}
		j := spawnJob{stdout: os.NewFile(uintptr(fds[0]), "stdout"), stderr: os.NewFile(uintptr(fds[1]), "stderr"),
			status: os.NewFile(uintptr(fds[2]), "status")}
		d := json.NewDecoder(bytes.NewReader(buf[:n]))
		d.DisallowUnknownFields()
		if err := d.Decode(&j.req); err != nil || len(j.req.Argv) == 0 || !filepath.IsAbs(j.req.Path) {
			writeReply(j.status, spawnReply{Err: fmt.Sprintf("bad request: %v", err)})
			j.close()
			continue
		}
		return j
	}
}

func (j spawnJob) close() {
	j.stdout.Close()
	j.stderr.Close()
	j.status.Close()
}

func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if r, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, r...)
		}
	}
	return fds
}

// prepareAfter is how long a running command has the machine to itself
// before the thread for the next one is readied: a short command (what
// autopilot mostly runs) has ended by then, and the preparation (a folder
// to make, a ruleset of some fifty rules) then runs while agentls hands
// the result on, not while the command runs.
const prepareAfter = 5 * time.Millisecond

// prepare readies, once after is closed (the previous command ended or has
// run for prepareAfter), the thread that starts the next command: it makes the command's folder, confines itself
// and then reads the next request itself, so a request wakes the thread
// that forks and no other.
func (s *spawner) prepare(after <-chan struct{}) {
	go func() {
		if after != nil {
			<-after
		}
		// Never unlocked: the restricted thread ends with this goroutine.
		runtime.LockOSThread()
		s.mu.Lock()
		s.n++
		tmp := filepath.Join(s.root, strconv.Itoa(s.n))
		s.mu.Unlock()
		perr := os.Mkdir(tmp, 0o700)
		if perr == nil {
			q := s.p
			q.Write = append(append([]string(nil), s.p.Write...), tmp)
			var listener int
			listener, perr = confineThread(q, true)
			if listener >= 0 {
				// The keeper lets the command make its group, and no
				// process under it another.
				if err := sendToKeeper(s.keeper, listener); err != nil {
					perr = fmt.Errorf("the group keeper is gone: %w", err)
				}
			}
		}
		j := s.next()
		ended := make(chan struct{})
		s.prepare(ended)
		s.start(j, tmp, perr, sync.OnceFunc(func() { close(ended) }))
	}()
}

// start runs on the restricted thread: it forks the command, reports it,
// waits for it and reports how it ended. It calls next once the next
// command's thread may be readied.
func (s *spawner) start(j spawnJob, tmp string, perr error, next func()) {
	defer next()
	defer j.status.Close()
	remove := func() { go os.RemoveAll(tmp) } // from an unrestricted thread
	if perr != nil {
		j.stdout.Close()
		j.stderr.Close()
		writeReply(j.status, spawnReply{Err: "cannot confine: " + perr.Error()})
		remove()
		return
	}
	env := make([]string, 0, len(j.req.Env)+1)
	for _, kv := range j.req.Env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	env = append(env, "TMPDIR="+tmp)
	attr := &syscall.ProcAttr{Dir: j.req.Dir, Env: env,
		Files: []uintptr{s.null.Fd(), j.stdout.Fd(), j.stderr.Fd()},
		// Its own group; killed if the spawner dies (this thread lives
		// as long as the command).
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	s.mu.Lock()
	pid, err := -1, fmt.Errorf("the launcher is ending")
	if !s.closing {
		pid, err = syscall.ForkExec(j.req.Path, j.req.Argv, attr)
		if err == nil {
			s.kids[pid] = time.Duration(j.req.GraceMS) * time.Millisecond
		}
	}
	s.mu.Unlock()
	j.stdout.Close()
	j.stderr.Close()
	if err != nil {
		writeReply(j.status, spawnReply{Err: fmt.Sprintf("start %s: %v", j.req.Path, err)})
		remove()
		return
	}
	writeReply(j.status, spawnReply{Pid: pid, Tmp: tmp})
	defer time.AfterFunc(prepareAfter, next).Stop()
	// Wait without reaping: while the leader is a zombie its pid (the
	// group's id) cannot be reused, so killing what it left in its group
	// can hit nothing else.
	var info unix.Siginfo
	for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
	}
	unix.Kill(-pid, unix.SIGKILL)
	var ws unix.WaitStatus
	var ru unix.Rusage
	for {
		if _, err := unix.Wait4(pid, &ws, 0, &ru); err != unix.EINTR {
			break
		}
	}
	s.mu.Lock()
	delete(s.kids, pid)
	s.mu.Unlock()
	writeReply(j.status, spawnReply{Exited: true, Status: int(ws),
		CPUMicros: ru.Utime.Sec*1e6 + ru.Utime.Usec + ru.Stime.Sec*1e6 + ru.Stime.Usec})
	j.status.Close()
	remove()
}

// shutdown ends every running command's group (SIGTERM, SIGKILL after its
// grace), removes the folders and exits. It runs when agentls closes the
// control socket or dies, or on a termination signal (from the guard).
func (s *spawner) shutdown() {
	s.end.Do(func() {
		s.mu.Lock()
		s.closing = true
		var grace time.Duration
		for pid, g := range s.kids {
			unix.Kill(-pid, unix.SIGTERM)
			grace = max(grace, g)
		}
		s.mu.Unlock()
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) {
			s.mu.Lock()
			n := len(s.kids)
			s.mu.Unlock()
			if n == 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		s.mu.Lock()
		for pid := range s.kids {
			unix.Kill(-pid, unix.SIGKILL)
		}
		s.mu.Unlock()
		os.RemoveAll(s.root)
		os.Exit(0)
	})
	select {} // another goroutine is exiting the process
}
