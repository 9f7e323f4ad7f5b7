// Command agentls is an LSP server that hosts an AI coding agent.
//
//	agentls [serve]                 the LSP server on stdio
//	agentls acp                     the Agent Client Protocol agent on stdio
//	agentls run "prompt"            one headless task in the current directory
//	agentls mcp list [--json]       the MCP server list, without a model
//	agentls mcp trust NAME          approve a workspace server's launch
//	agentls mcp revoke NAME|--all   forget launch approvals
//	agentls mcp login/logout NAME   OAuth for a remote server
//	agentls rules list|revoke ID    the saved "always allow" rules
//	agentls doctor                  config, model reachability, servers
//	agentls version
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
)

// version is set with -ldflags "-X main.version=..." by release builds.
var version = "0.1.0-dev"

func main() {
	sandbox.Hook() // the launcher of confined commands: `agentls __agentls_confine ...` never returns
	proc.Hook()    // the guard that ends process groups if agentls is killed: `agentls __agentls_guard` never returns
	proc.UseHelper(smallHelper)
	survivePipes()
	os.Exit(profiled(os.Args[1:]))
}

// profiled runs the command and, when AGENTLS_CPUPROFILE names a file,
// writes a pprof CPU profile of the whole run to it (`go tool pprof -top
// agentls FILE`). Every command, the signal-driven shutdowns included,
// ends by returning here, so the profile is complete when the process
// exits. The variable is taken out of the environment first: a child that
// is agentls again (an MCP server, a guard) does not overwrite the file.
func profiled(args []string) int {
	path := os.Getenv("AGENTLS_CPUPROFILE")
	if path == "" {
		return run(args)
	}
	os.Unsetenv("AGENTLS_CPUPROFILE")
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls: AGENTLS_CPUPROFILE: %v (expected a file agentls can write the CPU profile to)\n", err)
		return 1
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(os.Stderr, "agentls: AGENTLS_CPUPROFILE: %v\n", err)
		return 1
	}
	code := run(args)
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: AGENTLS_CPUPROFILE: %v\n", err)
	}
	return code
}

// smallHelper is agentls-sandbox when it is beside this executable and was
// built with it: it serves as the guard and the reapers at a fraction of
// the memory a second agentls holds (it imports only the sandbox and proc
// packages). Without it, agentls serves itself.
func smallHelper() string {
	if l, err := sandbox.Launcher(); err == nil && l.Dedicated {
		return l.Path
	}
	return ""
}

func run(args []string) int {
	if len(args) == 0 {
		return cmdServe(nil)
	}
	switch args[0] {
	case "--version", "-v":
		args = append([]string{"version"}, args[1:]...)
	case "--help", "-h":
		args = append([]string{"help"}, args[1:]...)
	}
	c, rest := findSubcommand(args)
	if c == nil {
		fmt.Fprintf(os.Stderr, "agentls: unknown command %q\n\n%s", args[0], overview())
		return 2
	}
	// Every command answers -h and --help with its usage, arguments and an
	// example, on stdout, exit 0 (a prompt that is the word --help is one
	// argument after "--").
	if wantsHelp(rest) {
		if named, _ := findSubcommand(rest); c.name == "help" && named != nil {
			c = named // agentls help run --help
		}
		printHelp(os.Stdout, c)
		return 0
	}
	return c.run(rest)
}

// survivePipes makes a write to a stdout or stderr nobody reads any more
// (an editor, an ACP or MCP client that died with its pipes; `| head`
// that exited) fail with EPIPE instead of killing agentls by SIGPIPE half
// way through: serve's MCP endpoint (socket, token file), mcp serve
// --http's token file, run's unfinished turn and every MCP server would be
// left behind. Notify, not Ignore: an ignored SIGPIPE is inherited by
// every program agentls starts (MCP servers, the agent's commands), so
// `while :; do echo y; done | head -1` would never end; a caught one is
// reset to the default on exec.
func survivePipes() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
