package sandbox

import "fmt"

func probe() Support {
	abi := landlockABI()
	s := Support{ABI: abi, Filesystem: abi >= 1, TCP: abi >= 4, Scoped: abi >= 6, SocketFilter: auditArch != 0}
	if abi < 1 {
		s.Reason = "the kernel has no Landlock (needs Linux 5.13 or later with landlock in the lsm= boot list)"
		s.SocketFilter = false
	} else if abi < 4 && !s.SocketFilter {
		s.Reason = fmt.Sprintf("Landlock ABI %d cannot limit the network", abi)
	}
	return s
}
