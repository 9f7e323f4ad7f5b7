package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// int80 makes a system call of the i386 ABI (int $0x80) from this 64-bit
// process: the kernel takes it as i386's, with i386's numbers.
func int80(trap, a1, a2, a3 uintptr) uintptr

const (
	i386Socket = 359        // socket on i386
	x32Bit     = 0x40000000 // x32 system calls: amd64's numbers with this bit
)

// otherABISocket makes a unix stream socket through another system call
// ABI of this machine: "i386" or "x32".
func otherABISocket(abi string) (int, error) {
	var r uintptr
	switch abi {
	case "i386":
		r = int80(i386Socket, unix.AF_UNIX, unix.SOCK_STREAM, 0)
	case "x32":
		fd, _, e := unix.RawSyscall(x32Bit|unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if e != 0 {
			return -1, fmt.Errorf("x32 socket: %w", e)
		}
		return int(fd), nil
	default:
		return -1, fmt.Errorf("no ABI %q", abi)
	}
	if e := int(int32(r)); e < 0 {
		return -1, fmt.Errorf("%s socket: %w", abi, unix.Errno(-e))
	}
	return int(int32(r)), nil
}
