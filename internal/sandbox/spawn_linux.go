package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/agentls/agentls/internal/proc"
	"golang.org/x/sys/unix"
)

// spawnerIdle is how long a spawner with nothing running is kept: a
// workspace that is closed (its policy no longer asked for) lets its
// spawner go after this.
var spawnerIdle = 5 * time.Minute

// spawnerEnv is the long-lived launcher's environment: empty, so none of
// agentls's (its API keys) reaches it; tests set Go runtime variables.
var spawnerEnv = []string{}

// maxSpawners bounds how many idle spawners are kept (one per policy).
const maxSpawners = 4

var spawners struct {
	sync.Mutex
	m map[string]*spawnerConn
}

// spawnerConn is agentls's end of one spawner.
type spawnerConn struct {
	key   string
	fd    int // control socket, close-on-exec: no other child holds it
	cmd   *exec.Cmd
	group *proc.Group
	root  string

	mu      sync.Mutex
	running int
	dead    bool
	used    time.Time
	idle    *time.Timer
}

var errSpawnerGone = errors.New("sandbox: the launcher ended")

// Spawn starts c confined to p plus a temporary folder of its own (its
// TMPDIR, the only place besides p.Write it may write, removed when it
// ends), in its own process group, which the guard knows before Spawn
// returns. The rules are those [Wrap] applies, enforced the same way; the
// program is forked by a long-lived launcher for p (started on first use,
// ended when agentls ends or after it was idle a while), so no launcher
// starts per command. It fails, never running c unconfined, when the
// kernel cannot enforce p.
func Spawn(p Policy, c Cmd) (*Process, error) {
	if err := CanSpawn(); err != nil {
		return nil, err
	}
	if len(c.Args) == 0 || !filepath.IsAbs(c.Path) {
		return nil, errors.New("sandbox: Spawn needs an absolute path and argv")
	}
	enc, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	req, err := json.Marshal(spawnRequest{Path: c.Path, Argv: c.Args, Env: c.Env, Dir: c.Dir, GraceMS: c.Grace.Milliseconds()})
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		z, evict, err := spawnerFor(string(enc))
		if evict != nil {
			evict.closeIdle()
		}
		if err != nil {
			return nil, err
		}
		pr, err := z.spawn(req, c)
		if errors.Is(err, errSpawnerGone) && attempt == 0 {
			continue // it ended before it read the request: start another
		}
		return pr, err
	}
}

// spawnerFor returns the running spawner for the encoded policy, starting
// one if there is none, and the idle spawner to end when there are too
// many.
func spawnerFor(key string) (z, evict *spawnerConn, err error) {
	spawners.Lock()
	defer spawners.Unlock()
	if z := spawners.m[key]; z != nil {
		return z, nil, nil
	}
	if spawners.m == nil {
		spawners.m = map[string]*spawnerConn{}
	}
	z, err = startSpawner(key)
	if err != nil {
		return nil, nil, err
	}
	spawners.m[key] = z
	if len(spawners.m) > maxSpawners {
		var oldest time.Time
		for _, o := range spawners.m {
			o.mu.Lock()
			if o != z && o.running == 0 && (evict == nil || o.used.Before(oldest)) {
				evict, oldest = o, o.used
			}
			o.mu.Unlock()
		}
	}
	return z, evict, nil
}

func startSpawner(key string) (*spawnerConn, error) {
	exe, err := launcher()
	if err != nil {
		return nil, err
	}
	root, err := PrivateTemp()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("sandbox: launcher socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "spawner-ctl")
	cmd := &exec.Cmd{Path: exe, Args: []string{exe, spawnerArg, key, root}, Stderr: os.Stderr,
		ExtraFiles: []*os.File{theirs}, // fd 3
		Env:        spawnerEnv,         // nothing of agentls's (its API keys) in the launcher
		// Its own group, for the guard; it ends by itself when the control
		// socket closes, which happens when agentls ends however it ends.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		unix.Close(fds[0])
		os.RemoveAll(root)
		return nil, fmt.Errorf("sandbox: start the launcher %s: %w", exe, err)
	}
	z := &spawnerConn{key: key, fd: fds[0], cmd: cmd, root: root, used: time.Now(),
		group: proc.Adopt(cmd.Process.Pid, 5*time.Second)}
	return z, nil
}

// spawn sends one request and reads the command's pid.
func (z *spawnerConn) spawn(req []byte, c Cmd) (*Process, error) {
	sr, sw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// Sent under the lock that closing takes: once closed, the socket's
	// number may name another file (another launcher's socket).
	z.mu.Lock()
	if z.dead {
		z.mu.Unlock()
		sr.Close()
		sw.Close()
		return nil, errSpawnerGone
	}
	z.running++
	if z.idle != nil {
		z.idle.Stop()
	}
	err = unix.Sendmsg(z.fd, req, unix.UnixRights(int(c.Stdout.Fd()), int(c.Stderr.Fd()), int(sw.Fd())), nil, 0)
	z.mu.Unlock()
	sw.Close()
	if err != nil {
		sr.Close()
		if errors.Is(err, unix.EPIPE) || errors.Is(err, unix.ECONNRESET) {
			z.done(true)
			return nil, errSpawnerGone
		}
		z.done(false) // the launcher is fine; this request was not
		if errors.Is(err, unix.EMSGSIZE) {
			return nil, fmt.Errorf("sandbox: %s: its arguments and environment (%d bytes) are too large for the launcher", c.Path, len(req))
		}
		return nil, fmt.Errorf("sandbox: send to the launcher: %w", err)
	}
	rd := bufio.NewReader(sr)
	var first spawnReply
	// A launcher that does not answer at all is stopped or stuck: end it
	// rather than wait forever (it has nothing of its own to lose).
	stuck := time.AfterFunc(firstReplyTimeout, z.kill)
	err = readReply(rd, &first)
	stuck.Stop()
	if err != nil {
		sr.Close()
		z.done(true)
		return nil, fmt.Errorf("sandbox: the launcher ended before starting %s", c.Path)
	}
	if first.Err != "" || first.Pid <= 1 {
		sr.Close()
		z.done(false)
		return nil, fmt.Errorf("sandbox: %s", first.Err)
	}
	pr := &Process{Pid: first.Pid, TempDir: first.Tmp, group: proc.Adopt(first.Pid, c.Grace),
		unstick: z.kill, launcher: z.cmd.Process.Pid, ended: make(chan struct{})}
	code := -1
	// The end is read as soon as the launcher reports it, whether or not
	// anyone waits yet: Stop needs to know whether it came.
	go func() {
		defer close(pr.ended)
		defer sr.Close()
		var end spawnReply
		if err := readReply(rd, &end); err != nil || !end.Exited {
			z.done(true) // the launcher died; the command died with it
			return
		}
		z.done(false)
		pr.cpu = time.Duration(end.CPUMicros) * time.Microsecond
		if ws := syscall.WaitStatus(end.Status); ws.Exited() {
			code = ws.ExitStatus()
		}
	}()
	pr.wait = func() int {
		<-pr.ended
		return code
	}
	return pr, nil
}

func readReply(rd *bufio.Reader, r *spawnReply) error {
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, r)
}

// done ends one command's use of z; gone says z was found dead.
func (z *spawnerConn) done(gone bool) {
	z.mu.Lock()
	z.running--
	z.used = time.Now()
	if gone && !z.dead {
		z.mu.Unlock()
		z.shut(false)
		return
	}
	if z.running == 0 && !z.dead {
		if z.idle == nil {
			z.idle = time.AfterFunc(spawnerIdle, z.closeIdle)
		} else {
			z.idle.Reset(spawnerIdle)
		}
	}
	z.mu.Unlock()
}

// firstReplyTimeout bounds the wait for a launcher to say it started a
// command (a fork: milliseconds, even on a loaded machine).
var firstReplyTimeout = 30 * time.Second

// kill ends a launcher that stopped answering: its socket closes, so every
// wait on it returns, and the commands it started die with it.
// It is forgotten at once, so the next command starts a new one.
func (z *spawnerConn) kill() {
	z.cmd.Process.Kill()
	z.shut(false)
}

// closeIdle ends z if nothing runs on it.
func (z *spawnerConn) closeIdle() { z.shut(true) }

// shut forgets z and closes its socket (unless onlyIdle and a command
// runs on it): the launcher ends every command still running on it and
// exits. It is reaped here.
func (z *spawnerConn) shut(onlyIdle bool) {
	z.mu.Lock()
	if z.dead || onlyIdle && z.running > 0 {
		z.mu.Unlock()
		return
	}
	z.dead = true
	if z.idle != nil {
		z.idle.Stop()
	}
	unix.Close(z.fd)
	z.mu.Unlock()
	spawners.Lock()
	if spawners.m[z.key] == z {
		delete(spawners.m, z.key)
	}
	spawners.Unlock()
	z.cmd.Wait()
	z.group.Release()
	os.RemoveAll(z.root)
}
