package main

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// waitParentExit waits on a pidfd of ppid until it exits (true) or ctx
// ends (false). It returns false at once when no pidfd can be had (kernels
// before 5.3): the caller then polls getppid.
func waitParentExit(ctx context.Context, ppid int) bool {
	fd, err := unix.PidfdOpen(ppid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "parent-pidfd") // nonblocking: waits in the runtime's poller
	defer f.Close()
	if os.Getppid() != ppid {
		return true // died (and the pid may be reused) before the pidfd was opened
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	stop := context.AfterFunc(ctx, func() { f.Close() }) // ends the wait below
	defer stop()
	exited := false
	rerr := rc.Read(func(fd uintptr) bool {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		exited = err == nil && n > 0
		return exited
	})
	if rerr != nil || !exited {
		return false
	}
	return true
}
