package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The group keeper answers the setpgid calls of the long-lived launcher's
// commands. A command is forked from a thread that already carries the
// filter, so the forked child's own setpgid(0, 0), which makes the
// command's process group, reaches the filter too; it is handed to a user
// notification, and every later setpgid (from the command or anything it
// starts) must fail. The answer cannot come from the launcher itself: Go
// forks with vfork, and the forking thread keeps its scheduler slot until
// the child has run exec, so a goroutine of the same process may never get
// to answer (one slot, or a garbage collection waiting for the forking
// thread). The keeper is a process of its own (`LAUNCHER __agentls_groups`,
// its socket on fd 3), one per launcher, started unconfined before any
// command: the launcher sends it each command's notification descriptor
// before the command is forked. When the launcher ends the socket closes
// and the keeper exits; a setpgid left unanswered then fails (ENOSYS),
// never succeeds.

// groupKeeperFD is the keeper's socket (SOCK_SEQPACKET).
const groupKeeperFD = 3

// startGroupKeeper starts the keeper and returns the launcher's end of its
// socket (close-on-exec: no command holds it).
func startGroupKeeper() (int, error) {
	self, err := os.Executable()
	if err != nil {
		return -1, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "group-keeper")
	cmd := &exec.Cmd{Path: self, Args: []string{self, groupKeeperArg}, Stderr: os.Stderr, Env: []string{},
		ExtraFiles: []*os.File{theirs}}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		unix.Close(fds[0])
		return -1, err
	}
	// Reaped when it exits, which is after the launcher (its socket's end).
	go cmd.Wait()
	return fds[0], nil
}

// sendToKeeper hands one command's notification descriptor to the keeper
// and closes the launcher's copy.
func sendToKeeper(keeper, listener int) error {
	defer unix.Close(listener)
	return unix.Sendmsg(keeper, []byte{1}, unix.UnixRights(listener), nil, 0)
}

// runGroupKeeper is the keeper's main: it serves every notification
// descriptor the launcher sends until the launcher is gone.
func runGroupKeeper() int {
	if _, err := unix.FcntlInt(groupKeeperFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: group keeper: no socket: %v\n", err)
		return launcherFailed
	}
	launcher := os.Getppid()
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(groupKeeperFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 && oobn == 0 {
			return 0 // the launcher is gone
		}
		for _, fd := range receivedFDs(oob[:oobn]) {
			go answerSetpgid(fd, launcher)
		}
	}
}

// seccompNotif and seccompNotifResp are struct seccomp_notif and
// seccomp_notif_resp.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// SECCOMP_IOCTL_NOTIF_ID_VALID, _IOW('!', 2, __u64).
const notifIDValid = 0x40082102

// answerSetpgid serves the notifications of one command's filter until no
// process uses the filter any more, then closes it. The first
// setpgid(0, 0) is the command's own, made by the child the launcher
// forked before it runs anything of the command (the launcher's thread
// never calls setpgid): when it comes from a child of the launcher it goes
// through and makes the command's group. Every later one fails with EPERM,
// as in the one-shot launcher.
func answerSetpgid(listener, launcher int) {
	defer unix.Close(listener)
	first := true
	for {
		pfd := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: every process under the filter is gone
		}
		var req seccompNotif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&req))); e != 0 {
			if e == unix.EINTR || e == unix.ENOENT {
				continue // the caller died before we read it
			}
			return
		}
		resp := seccompNotifResp{id: req.id, error: -int32(unix.EPERM)}
		if first && req.nr == unix.SYS_SETPGID && req.args[0] == 0 && req.args[1] == 0 && parentOf(int(req.pid)) == launcher {
			// Still the same caller (its pid not reused) after reading /proc.
			if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), notifIDValid, uintptr(unsafe.Pointer(&req.id))); e == 0 {
				first = false
				resp.error, resp.flags = 0, unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
			}
		}
		unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}

// parentOf is pid's parent, from /proc (0 when it cannot be read).
func parentOf(pid int) int {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(st[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}
