package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter is the part of confinement Landlock cannot do. It is
// not a full allow list: a system call passes only if its number is one
// this package was reviewed against (up to lastSyscall: a system call added
// to Linux later fails with ENOSYS, which every program must expect on
// older kernels) and it is not one of those below, which fail or pass only
// in the forms named; every other reviewed call passes. With the network
// off:
//
//   - socket(2) makes nothing but, when the policy allows TCP ports, a
//     plain TCP socket for Landlock's port rules to judge: no UDP (DNS
//     tunnels, exfiltration), raw, packet, netlink or multipath TCP
//     socket, and no unix socket (ssh-agent, gpg-agent, the D-Bus session
//     bus or docker.sock, listening on a path, hand out keys or root);
//   - io_uring_setup, io_uring_enter and io_uring_register fail with
//     ENOSYS: IORING_OP_SOCKET makes a socket inside the kernel, where no
//     filter on socket(2) looks, and IORING_OP_ACCEPT takes connections;
//     programs (libuv, liburing users) fall back to plain system calls;
//   - socketpair(2) makes only a unix stream or seqpacket pair: each end is
//     connected to the other for good, so it reaches nothing the program
//     does not already hold (asyncio's self-pipe and libuv's child pipes
//     are such pairs); a datagram pair is refused, since a datagram socket
//     may send to any other one by its path (journald's /dev/log);
//   - accept(2) and accept4(2) fail unless the policy allows TCP ports: a
//     listening socket the program inherited yields no connection;
//   - listen(2) fails unless the policy names a port to listen on: on a
//     socket never bound it has the kernel pick a free port with no
//     bind(2), which is all Landlock judges;
//   - pidfd_getfd(2) fails: no descriptor is copied out of another process.
//
// Whatever the network, prlimit64(2) changes and reads only the caller's
// own limits (pid 0; the C library's setrlimit and getrlimit use it so):
// Landlock keeps a program from signalling agentls, but lowering another
// process's hard CPU limit to 0 has the kernel SIGKILL it, and a tiny
// address-space or descriptor limit breaks it just as surely (agentls,
// the guard, the editor, anything of the same user).
//
// Whatever the network, keyctl(2), add_key(2) and request_key(2) fail
// with ENOSYS, as on a kernel without keys: the kernel's keyrings are no
// files, so Landlock never sees them, and any process of the user may read
// the user keyring (a token a script stored, a Kerberos ticket kept in
// KEYRING:persistent). So do System V IPC's calls (shared memory, message
// queues, semaphores): no files either, and the kernel lists every
// segment to any process of the user (ipcs does), so a confined program
// read, and could write, another program's shared memory; a program of its
// own uses POSIX shared memory or a pipe instead.
//
// Whatever the network, setsid(2) and setpgid(2) fail with EPERM: every
// process the program starts stays in the process group agentls knows and
// kills (the guard too, when agentls itself is killed), so a double-forked
// daemon under setsid cannot outlive its server or command. The one
// setpgid allowed is the one that makes that group: the one-shot launcher
// is already its leader when it installs the filter; the long-lived
// launcher forks its commands from a filtered thread, so its filter hands
// setpgid to a user notification, which the group keeper answers (see
// runGroupKeeper).
//
// A system call of another architecture (i386's int 0x80 on amd64, x32)
// is refused outright, so the filter cannot be stepped around.

// lastSyscall is the highest system call number reviewed for this filter:
// file_setattr, Linux 6.17 (numbers from 424 on are the same on every
// architecture). Raise it only after reading what the new calls do.
const lastSyscall = 469

// filterRules say which variant of the filter a program gets.
type filterRules struct {
	network bool // any socket: no socket rules at all
	tcp     bool // TCP sockets and accept allowed, for Landlock's port rules
	listen  bool // listen(2) allowed: the policy names a port to listen on
	// pinNotify makes setpgid a user notification instead of EPERM, for
	// the launcher that must let its command's first setpgid through.
	pinNotify bool
}

// bpf assembles a seccomp program with named jump targets.
type bpf struct {
	prog   []unix.SockFilter
	labels map[string]int
	fix    []bpfFix
}

type bpfFix struct {
	at     int
	jt, jf string
}

func (b *bpf) ld(off uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (b *bpf) and(k uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: k})
}

// jump compares the accumulator with k (op JEQ, JGE or JGT) and goes to
// label jt when true, jf when false; "" is the next instruction. BPF
// jumps only forward, at most 255 instructions.
func (b *bpf) jump(op uint16, k uint32, jt, jf string) {
	b.fix = append(b.fix, bpfFix{at: len(b.prog), jt: jt, jf: jf})
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (b *bpf) ret(k uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (b *bpf) label(name string) { b.labels[name] = len(b.prog) }

func (b *bpf) assemble() []unix.SockFilter {
	for _, f := range b.fix {
		off := func(l string) uint8 {
			if l == "" {
				return 0
			}
			to, ok := b.labels[l]
			d := to - f.at - 1
			if !ok || d < 0 || d > 255 {
				panic("sandbox: bad seccomp jump to " + l)
			}
			return uint8(d)
		}
		b.prog[f.at].Jt, b.prog[f.at].Jf = off(f.jt), off(f.jf)
	}
	return b.prog
}

// syscallFilter is the seccomp program for r; nil when this architecture
// has no filter (see auditArch).
func syscallFilter(r filterRules) []unix.SockFilter {
	if auditArch == 0 {
		return nil
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // socket: domain; prlimit64: pid
		offArg1 = 24 // socket: type
		offArg2 = 32 // socket: protocol
	)
	b := &bpf{labels: map[string]int{}}
	b.ld(offArch)
	b.jump(unix.BPF_JEQ, auditArch, "", "eacces")
	b.ld(offNr)
	b.jump(unix.BPF_JGE, x32Bit, "eacces", "")
	b.jump(unix.BPF_JGT, lastSyscall, "enosys", "")
	b.jump(unix.BPF_JEQ, unix.SYS_SETSID, "eperm", "")
	b.jump(unix.BPF_JEQ, unix.SYS_PRLIMIT64, "prlimit", "")
	b.jump(unix.BPF_JEQ, unix.SYS_KEYCTL, "enosys", "")
	b.jump(unix.BPF_JEQ, unix.SYS_ADD_KEY, "enosys", "")
	b.jump(unix.BPF_JEQ, unix.SYS_REQUEST_KEY, "enosys", "")
	for _, nr := range sysvIPC {
		b.jump(unix.BPF_JEQ, nr, "enosys", "")
	}
	if r.pinNotify {
		b.jump(unix.BPF_JEQ, unix.SYS_SETPGID, "notify", "")
	} else {
		b.jump(unix.BPF_JEQ, unix.SYS_SETPGID, "eperm", "")
	}
	if !r.network {
		b.jump(unix.BPF_JEQ, unix.SYS_SOCKET, "socket", "")
		b.jump(unix.BPF_JEQ, unix.SYS_SOCKETPAIR, "socketpair", "")
		b.jump(unix.BPF_JEQ, unix.SYS_IO_URING_SETUP, "enosys", "")
		b.jump(unix.BPF_JEQ, unix.SYS_IO_URING_ENTER, "enosys", "")
		b.jump(unix.BPF_JEQ, unix.SYS_IO_URING_REGISTER, "enosys", "")
		b.jump(unix.BPF_JEQ, unix.SYS_PIDFD_GETFD, "eperm", "")
		if !r.listen {
			b.jump(unix.BPF_JEQ, unix.SYS_LISTEN, "eacces", "")
		}
		if !r.tcp {
			b.jump(unix.BPF_JEQ, unix.SYS_ACCEPT, "eacces", "")
			b.jump(unix.BPF_JEQ, unix.SYS_ACCEPT4, "eacces", "")
		}
	}
	b.ret(unix.SECCOMP_RET_ALLOW)
	b.label("prlimit")
	b.ld(offArg0)
	b.jump(unix.BPF_JEQ, 0, "", "eperm") // pid 0: the caller itself
	b.ret(unix.SECCOMP_RET_ALLOW)
	if !r.network {
		b.label("socket")
		if r.tcp {
			b.ld(offArg0)
			b.jump(unix.BPF_JEQ, unix.AF_INET, "inet", "")
			b.jump(unix.BPF_JEQ, unix.AF_INET6, "inet", "eacces")
			b.label("inet")
			b.ld(offArg1)
			b.and(0xf) // SOCK_NONBLOCK and SOCK_CLOEXEC off: the type
			b.jump(unix.BPF_JEQ, unix.SOCK_STREAM, "", "eacces")
			b.ld(offArg2)
			b.jump(unix.BPF_JEQ, 0, "ok", "")
			b.jump(unix.BPF_JEQ, unix.IPPROTO_TCP, "ok", "eacces")
		} else {
			b.ret(deny(unix.EACCES))
		}
		b.label("socketpair")
		b.ld(offArg0)
		b.jump(unix.BPF_JEQ, unix.AF_UNIX, "", "eacces")
		b.ld(offArg1)
		b.and(0xf)
		b.jump(unix.BPF_JEQ, unix.SOCK_STREAM, "ok", "")
		b.jump(unix.BPF_JEQ, unix.SOCK_SEQPACKET, "ok", "eacces")
		b.label("ok") // jumps go forward only: a second allow
		b.ret(unix.SECCOMP_RET_ALLOW)
	}
	if r.pinNotify {
		b.label("notify")
		b.ret(unix.SECCOMP_RET_USER_NOTIF)
	}
	b.label("eacces")
	b.ret(deny(unix.EACCES))
	b.label("eperm")
	b.ret(deny(unix.EPERM))
	b.label("enosys")
	b.ret(deny(unix.ENOSYS))
	return b.assemble()
}

func deny(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// installFilter applies syscallFilter(r) to the calling thread;
// no_new_privs must be set already. With r.pinNotify it returns the
// filter's notification descriptor (for the group keeper), else -1.
func installFilter(r filterRules) (int, error) {
	f := syscallFilter(r)
	if f == nil {
		return -1, nil
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if !r.pinNotify {
		if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
			return -1, fmt.Errorf("seccomp filter: %w", err)
		}
		return -1, nil
	}
	fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		return -1, fmt.Errorf("seccomp filter with a listener: %w", e)
	}
	return int(fd), nil
}
