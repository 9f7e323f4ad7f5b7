// Command agentls-sandbox is agentls's launcher of confined programs: a
// small binary agentls starts, when it finds it beside its own executable,
// to apply the kernel's rules (Landlock, seccomp) between fork and exec of
// a command or a repository's MCP server. It imports only the sandbox
// package, so it starts in a fraction of the time agentls itself takes;
// without it agentls re-executes itself as the launcher (same rules,
// slower start). It also serves as agentls's guard of process groups and
// as the reaper of each unconfined command (package proc), for the same
// reason: a second agentls held 12 MB to do either. It is not meant to be
// run by hand:
//
//	agentls-sandbox __agentls_confine POLICY PATH ARGV0 [ARGS...]
//	agentls-sandbox __agentls_guard
//	agentls-sandbox __agentls_reaper GRACE_MS PATH ARGV0 [ARGS...]
package main

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
)

func main() {
	sandbox.Hook() // with the launcher argument: confines itself and execs, never returns
	proc.Helper()  // agentls's guard and reapers, with their arguments: never returns
	fmt.Fprintln(os.Stderr, "agentls-sandbox: agentls's launcher of confined programs; it is started by agentls, not by hand")
	os.Exit(2)
}
