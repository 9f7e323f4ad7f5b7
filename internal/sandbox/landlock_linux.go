package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Landlock calls are made directly, not through go-landlock: that
// library restricts every thread of the calling process through libcap's
// psx, which (with cgo) wraps pthread_create in the whole agentls binary.
// The launcher needs only its own thread restricted right before execve,
// which is what the bare system calls do.

// Filesystem rights by Landlock ABI version.
const (
	fsV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsV2 = fsV1 | unix.LANDLOCK_ACCESS_FS_REFER
	fsV3 = fsV2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	fsV5 = fsV3 | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	fsRead  = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	fsExec  = fsRead | unix.LANDLOCK_ACCESS_FS_EXECUTE
	fsWrite = fsRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SYM |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	// Rights that apply to a single file (a rule on a file may hold no others).
	fsFileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	netBindTCP    = unix.LANDLOCK_ACCESS_NET_BIND_TCP
	netConnectTCP = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	ruleNetPort   = 2

	scopeAll = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
)

// netPortAttr is struct landlock_net_port_attr (packed: two u64).
type netPortAttr struct {
	allowed uint64
	port    uint64
}

// landlockABI is the kernel's Landlock ABI version, 0 when it has none
// (not built in, or not enabled at boot).
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// handledFS is every filesystem right the kernel's ABI knows: handling all
// of them means whatever no rule grants is refused.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 5:
		return fsV5
	case abi >= 3:
		return fsV3
	case abi >= 2:
		return fsV2
	}
	return fsV1
}

// restrictThread confines the calling OS thread (and what it execs) to p.
// The caller must have locked the goroutine to its thread and must exec
// right after: other threads of the process stay unconfined.
func restrictThread(p Policy, abi int) error {
	if abi < 1 {
		return errors.New("this kernel has no Landlock")
	}
	handled := handledFS(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	size := unsafe.Sizeof(uint64(0)) // access_fs only (ABI 1-3)
	if abi >= 4 && !p.Network {
		attr.Access_net = netBindTCP | netConnectTCP
		size = 2 * unsafe.Sizeof(uint64(0))
	}
	if abi >= 6 {
		// Abstract unix sockets and signals reach only the program's own
		// domain: it cannot signal agentls or talk to a session bus.
		attr.Scoped = scopeAll
		size = unsafe.Sizeof(attr)
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	defer unix.Close(int(fd))
	add := func(paths []string, rights uint64) error {
		for _, path := range paths {
			if err := addPathRule(int(fd), path, rights&handled); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(p.Read, fsRead); err != nil {
		return err
	}
	if err := add(p.Exec, fsExec); err != nil {
		return err
	}
	if err := add(p.Write, fsWrite); err != nil {
		return err
	}
	if attr.Access_net != 0 {
		ports := func(list []uint16, right uint64) error {
			for _, port := range list {
				r := netPortAttr{allowed: right, port: uint64(port)}
				if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, ruleNetPort, uintptr(unsafe.Pointer(&r)), 0, 0, 0); e != 0 {
					return fmt.Errorf("landlock rule for TCP port %d: %w", port, e)
				}
			}
			return nil
		}
		if err := ports(p.Connect, netConnectTCP); err != nil {
			return err
		}
		if err := ports(p.Bind, netBindTCP); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// addPathRule allows rights beneath path. A path that does not exist is
// skipped (a system without /lib32 is fine); one that exists but cannot be
// opened is an error, so a policy never silently grants less than it says.
func addPathRule(rulesetFD int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("open %s for a landlock rule: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s for a landlock rule: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fsFileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, e)
	}
	return nil
}
