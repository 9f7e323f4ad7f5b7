package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// dropCapabilities empties every capability set of the calling thread,
// bounding set included, so that neither it nor anything it execs holds
// one (with no_new_privs, exec never grants one either, not even to a
// program run as root). Landlock and the seccomp filter leave
// capabilities alone: agentls run as root (a container, a CI machine)
// gave its confined programs all of them, and with CAP_BPF, CAP_PERFMON
// or CAP_SYS_ADMIN a program loads kernel code or watches every process,
// whatever its Landlock domain.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var held [2]unix.CapUserData
	if err := unix.Capget(&hdr, &held[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if held[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		// Dropping from the bounding set needs CAP_SETPCAP; without it
		// (an ordinary user) the set grants nothing: exec under
		// no_new_privs keeps at most the permitted set, emptied below.
		for c := 0; ; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				if err == unix.EINVAL {
					break // past the kernel's last capability
				}
				return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
