package mcp

import "time"

// WatchGroup registers process group pgid with the guard (see
// SupervisorHook), so the group is terminated (SIGTERM, SIGKILL after
// grace) if this process dies, even by SIGKILL, before calling forget.
// The agent uses it for run_command's groups: `sleep 777 &` in a shell
// command must not outlive agentls. Without the hook it does nothing and
// forget is a no-op.
func WatchGroup(pgid int, grace time.Duration) (forget func()) {
	if !guardWatch(pgid, grace) {
		return func() {}
	}
	return func() { guardForget(pgid) }
}
