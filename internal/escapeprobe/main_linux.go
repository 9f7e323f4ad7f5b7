package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const payload = "ESCAPED-PAYLOAD\n"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: escapeprobe MODE ARGS (see the package comment)")
		os.Exit(2)
	}
	mode, args := os.Args[1], os.Args[2:]
	need := func(n int) {
		if len(args) < n {
			fmt.Fprintf(os.Stderr, "escapeprobe %s: needs %d arguments\n", mode, n)
			os.Exit(2)
		}
	}
	switch mode {
	case "uring-unix":
		need(1)
		if fd, ok := step("io_uring socket", func() (int, error) { return uringSocket(unix.AF_UNIX, unix.SOCK_STREAM, 0) }); ok {
			sendUnix(fd, args[0])
		}
	case "uring-udp":
		need(1)
		if fd, ok := step("io_uring socket", func() (int, error) { return uringSocket(unix.AF_INET, unix.SOCK_DGRAM, 0) }); ok {
			sendUDP(fd, args[0])
		}
	case "i386-unix", "x32-unix":
		need(1)
		abi := mode[:len(mode)-len("-unix")]
		if fd, ok := step(abi+" socket", func() (int, error) { return otherABISocket(abi) }); ok {
			sendUnix(fd, args[0])
		}
	case "socket-unix":
		need(1)
		if fd, ok := step("socket", func() (int, error) { return unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0) }); ok {
			sendUnix(fd, args[0])
		}
	case "socket-udp":
		need(1)
		if fd, ok := step("socket", func() (int, error) { return unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0) }); ok {
			sendUDP(fd, args[0])
		}
	case "pair-dgram":
		need(1)
		var fds [2]int
		if _, ok := step("socketpair", func() (int, error) {
			var err error
			fds, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
			return fds[0], err
		}); ok {
			// A datagram socket is never stuck with its peer: sendto names
			// any other socket (journald's /dev/log, a notify socket).
			if _, ok := step("sendto", func() (int, error) {
				return 0, unix.Sendto(fds[0], []byte(payload), 0, &unix.SockaddrUnix{Name: args[0]})
			}); ok {
				fmt.Println("ESCAPED")
			}
		}
	case "pair-stream":
		var fds [2]int
		if _, ok := step("socketpair", func() (int, error) {
			var err error
			fds, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			return fds[0], err
		}); ok {
			step("write", func() (int, error) { return unix.Write(fds[0], []byte("pair\n")) })
			buf := make([]byte, 16)
			if n, ok := step("read", func() (int, error) { return unix.Read(fds[1], buf) }); ok && string(buf[:n]) == "pair\n" {
				fmt.Println("PAIR-WORKS")
			}
		}
	case "accept":
		need(1)
		fd, err := strconv.Atoi(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "escapeprobe accept: FD must be a number")
			os.Exit(2)
		}
		if c, ok := step("accept", func() (int, error) { nfd, _, err := unix.Accept(fd); return nfd, err }); ok {
			if _, ok := step("write", func() (int, error) { return unix.Write(c, []byte(payload)) }); ok {
				fmt.Println("ESCAPED")
			}
		}
	case "daemon", "daemon-middle":
		need(1)
		daemon(mode == "daemon-middle", args)
	case "setpgid":
		need(1)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if _, ok := step("child in a group of its own", func() (int, error) { return 0, cmd.Start() }); ok {
			fmt.Println("ESCAPED")
		} else {
			cmd = exec.Command(args[0], args[1:]...)
			step("child in the same group", func() (int, error) { return 0, cmd.Start() })
		}
	case "privileged":
		privileged()
	case "prlimit":
		need(1)
		pid, err := strconv.Atoi(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "escapeprobe prlimit: PID must be a number")
			os.Exit(2)
		}
		// One descriptor at most: the process can open nothing more. A
		// hard CPU limit of 0 kills it the same way (SIGKILL).
		lim := unix.Rlimit{Cur: 1, Max: 1}
		if _, ok := step("prlimit", func() (int, error) { return 0, unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil) }); ok {
			fmt.Println("ESCAPED")
		}
	case "keyring":
		need(1)
		// What any process of the user finds in the user's keyring (a
		// Kerberos ticket in KEYRING:persistent, a token a script added).
		if id, ok := step("keyctl search", func() (int, error) {
			return unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", args[0], 0)
		}); ok {
			buf := make([]byte, 256)
			if n, ok := step("keyctl read", func() (int, error) { return unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0) }); ok {
				fmt.Printf("read %q\nESCAPED\n", buf[:min(n, len(buf))])
			}
		}
	case "inherited":
		// A socket the program was handed without asking (a descriptor
		// its starter's starter left open) is a way out with no socket(2).
		for fd := 3; fd < 1024; fd++ {
			if _, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil {
				continue
			}
			if _, ok := step("write to inherited socket "+strconv.Itoa(fd), func() (int, error) { return unix.Write(fd, []byte(payload)) }); ok {
				fmt.Println("ESCAPED")
			}
		}
		fmt.Println("looked at every descriptor")
	case "listen":
		// listen(2) on a TCP socket never bound picks a free port itself:
		// no bind(2), so no port rule of Landlock's is asked.
		if fd, ok := step("socket", func() (int, error) { return unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0) }); ok {
			if _, ok := step("listen", func() (int, error) { return 0, unix.Listen(fd, 1) }); ok {
				if sa, err := unix.Getsockname(fd); err == nil {
					if in, ok := sa.(*unix.SockaddrInet4); ok {
						fmt.Printf("listening on port %d\n", in.Port)
					}
				}
				fmt.Println("ESCAPED")
			}
		}
	case "shm":
		need(1)
		sysvShm(args[0])
	default:
		fmt.Fprintf(os.Stderr, "escapeprobe: unknown mode %q\n", mode)
		os.Exit(2)
	}
}

// step runs one attempt and prints what the system said.
func step(name string, f func() (int, error)) (int, bool) {
	n, err := f()
	if err != nil {
		fmt.Printf("%s: %v\n", name, err)
		return n, false
	}
	fmt.Printf("%s: ok\n", name)
	return n, true
}

func sendUnix(fd int, path string) {
	if _, ok := step("connect", func() (int, error) { return 0, unix.Connect(fd, &unix.SockaddrUnix{Name: path}) }); !ok {
		return
	}
	if _, ok := step("write", func() (int, error) { return unix.Write(fd, []byte(payload)) }); ok {
		fmt.Println("ESCAPED")
	}
}

func sendUDP(fd int, hostport string) {
	addr, err := net.ResolveUDPAddr("udp4", hostport)
	if err != nil || addr.IP.To4() == nil {
		fmt.Fprintf(os.Stderr, "escapeprobe: %q is not an IPv4 HOST:PORT\n", hostport)
		os.Exit(2)
	}
	sa := &unix.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	if _, ok := step("sendto", func() (int, error) { return 0, unix.Sendto(fd, []byte(payload), 0, sa) }); ok {
		fmt.Println("ESCAPED")
	}
}

// daemon is the classic double fork: a middle process in a session of its
// own starts the program, again in a new session, and exits at once, so
// the program is orphaned outside the group it was started in. A refused
// setsid is ignored (the program is started anyway), as a careless daemon
// would: what the test checks is that the program ends with its group.
func daemon(middle bool, argv []string) {
	start := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if _, ok := step("setsid", func() (int, error) { return 0, cmd.Start() }); ok {
			return
		}
		cmd = exec.Command(name, args...)
		step("start without setsid", func() (int, error) { return 0, cmd.Start() })
	}
	if middle {
		start(argv[0], argv[1:]...)
		return // exits without waiting: the program is orphaned
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Println("executable:", err)
		return
	}
	cmd := exec.Command(self, append([]string{"daemon-middle"}, argv...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		fmt.Println("setsid:", err)
		cmd = exec.Command(self, append([]string{"daemon-middle"}, argv...)...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		step("middle without setsid", func() (int, error) { return 0, cmd.Run() })
	}
	fmt.Println("daemon started")
}

// privileged tries what only capabilities allow: it prints the ones it
// holds, then loads nothing but makes a BPF map (bpf(2) is where kernel
// programs that read and write any process's memory start) and watches
// every process on CPU 0 (perf_event_open system-wide samples their
// registers and stacks). "ESCAPED" when any of it worked.
func privileged() {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	escaped := false
	if _, ok := step("capget", func() (int, error) { return 0, unix.Capget(&hdr, &data[0]) }); ok {
		eff := uint64(data[1].Effective)<<32 | uint64(data[0].Effective)
		prm := uint64(data[1].Permitted)<<32 | uint64(data[0].Permitted)
		fmt.Printf("capabilities: effective %#x permitted %#x\n", eff, prm)
		escaped = eff|prm != 0
	}
	attr := struct{ mapType, keySize, valueSize, maxEntries uint32 }{2, 4, 4, 1} // BPF_MAP_TYPE_ARRAY
	if _, ok := step("bpf map", func() (int, error) {
		fd, _, e := unix.Syscall(unix.SYS_BPF, 0 /* BPF_MAP_CREATE */, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}); ok {
		escaped = true
	}
	pe := unix.PerfEventAttr{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_CPU_CLOCK, Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{}))}
	if _, ok := step("perf_event_open every process", func() (int, error) { return unix.PerfEventOpen(&pe, -1, 0, -1, 0) }); ok {
		escaped = true
	}
	if escaped {
		fmt.Println("ESCAPED")
	}
}

// sysvShm looks through every System V shared memory segment the kernel
// lists (SHM_STAT by index, as ipcs does) for one holding marker: a
// segment another process of the user made, open to every process of the
// user whatever its Landlock domain.
func sysvShm(marker string) {
	var info unix.SysvShmDesc
	last, ok := step("shmctl SHM_INFO", func() (int, error) { return unix.SysvShmCtl(0, 14 /* SHM_INFO */, &info) })
	if !ok {
		return
	}
	for i := 0; i <= last; i++ {
		var d unix.SysvShmDesc
		id, err := unix.SysvShmCtl(i, 13 /* SHM_STAT */, &d)
		if err != nil {
			continue
		}
		b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
		if err != nil {
			continue
		}
		if strings.Contains(string(b), marker) {
			fmt.Printf("segment %d holds %q\nESCAPED\n", id, marker)
		}
		unix.SysvShmDetach(b)
	}
}
