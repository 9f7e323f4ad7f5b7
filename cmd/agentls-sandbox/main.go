// Command agentls-sandbox is agentls's launcher of confined programs: a
// small binary agentls starts, when it finds it beside its own executable,
// to apply the kernel's rules (Landlock, seccomp) between fork and exec of
// a command or a repository's MCP server. It imports only the sandbox
// package, so it starts in a fraction of the time agentls itself takes;
// without it agentls re-executes itself as the launcher (same rules,
// slower start). It is not meant to be run by hand:
//
//	agentls-sandbox __agentls_confine POLICY PATH ARGV0 [ARGS...]
package main

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/internal/sandbox"
)

func main() {
	sandbox.Hook() // with the launcher argument: confines itself and execs, never returns
	fmt.Fprintln(os.Stderr, "agentls-sandbox: agentls's launcher of confined programs; it is started by agentls, not by hand")
	os.Exit(2)
}
