package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// socketFilter is a seccomp program that refuses socket(2) with EACCES for
// everything Landlock cannot judge: UDP (DNS tunnels, exfiltration), raw
// and packet sockets, netlink, multipath TCP (which Landlock's TCP rules do
// not cover) and unix sockets (an ssh-agent or a container daemon listening
// on a path would hand out keys or root). Plain TCP sockets are let through
// only when tcp is true, for Landlock's port rules to decide. A system call
// from another architecture (x32, i386 on amd64) is refused outright, so
// the filter cannot be stepped around. nil when this architecture has no
// filter (see auditArch).
func socketFilter(tcp bool) []unix.SockFilter {
	if auditArch == 0 {
		return nil
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // domain
		offArg1 = 24 // type
		offArg2 = 32 // protocol
		allow   = unix.SECCOMP_RET_ALLOW
		deny    = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	)
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }

	prog := []unix.SockFilter{
		ld(offArch),
		jeq(auditArch, 1, 0),
		ret(deny),
		ld(offNr),
		{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: x32Bit, Jt: 0, Jf: 1},
		ret(deny),
		jeq(uint32(unix.SYS_SOCKET), 1, 0),
		ret(allow),
	}
	if !tcp {
		return append(prog, ret(deny))
	}
	return append(prog,
		ld(offArg0),
		jeq(unix.AF_INET, 1, 0),
		jeq(unix.AF_INET6, 0, 7),
		ld(offArg1),
		unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0xf}, // SOCK_NONBLOCK|SOCK_CLOEXEC off
		jeq(unix.SOCK_STREAM, 0, 4),
		ld(offArg2),
		jeq(0, 1, 0),
		jeq(unix.IPPROTO_TCP, 0, 1),
		ret(allow),
		ret(deny),
	)
}

// installSocketFilter applies socketFilter(tcp) to the calling thread;
// no_new_privs must be set already.
func installSocketFilter(tcp bool) error {
	f := socketFilter(tcp)
	if f == nil {
		return nil
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp socket filter: %w", err)
	}
	return nil
}
