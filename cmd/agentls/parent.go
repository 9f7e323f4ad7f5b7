package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"
)

// parentPoll is how often the getppid fallback looks at the parent.
const parentPoll = 500 * time.Millisecond

// watchParent returns a context that is also cancelled when the process
// that started agentls goes away, and a stop function that ends the watch.
// An editor killed with SIGKILL may leave agentls's stdin open (another
// process holds the pipe, as code-server's reconnection grace does), so end
// of input alone does not end agentls; PR_SET_PDEATHSIG cannot help either,
// since the editor, not agentls, starts this process. When the parent dies
// the process is re-parented, so its parent pid changes: Linux watches the
// parent through a pidfd (told at once), other Unix systems (and kernels
// before 5.3) poll getppid. A process whose parent is already init (pid 1)
// cannot tell, and is not watched; neither is one on Windows.
func watchParent(ctx context.Context, logf func(string, ...any)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	ppid := os.Getppid()
	// Windows keeps a dead parent's pid: there is nothing to poll, and only
	// the end of input ends agentls.
	if ppid <= 1 || runtime.GOOS == "windows" {
		return ctx, cancel
	}
	gone := func(how string) {
		logf("agentls: the process that started it (pid %d) is gone (%s); ending every task and MCP server", ppid, how)
		cancel()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if waitParentExit(ctx, ppid) {
			gone("told by the kernel")
			return
		}
		if ctx.Err() != nil {
			return
		}
		t := time.NewTicker(parentPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if now := os.Getppid(); now != ppid {
					gone(fmt.Sprintf("its parent pid is now %d", now))
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(); <-done }
}
