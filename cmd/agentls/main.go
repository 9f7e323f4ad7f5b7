// Command agentls is an LSP server that hosts an AI coding agent.
//
//	agentls [serve]                 the LSP server on stdio
//	agentls acp                     the Agent Client Protocol agent on stdio
//	agentls run "prompt"            one headless task in the current directory
//	agentls mcp list [--json]       the MCP server list, without a model
//	agentls mcp trust NAME          approve a workspace server's launch
//	agentls mcp revoke NAME|--all   forget launch approvals
//	agentls mcp login/logout NAME   OAuth for a remote server
//	agentls doctor                  config, model reachability, servers
//	agentls version
package main

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
)

// version is set with -ldflags "-X main.version=..." by release builds.
var version = "0.1.0-dev"

const usage = `agentls: an LSP server that hosts an AI coding agent

usage:
  agentls [serve]                         serve LSP on stdio (what editors run)
  agentls acp [--config FILE]             serve the Agent Client Protocol on stdio (Zed, JetBrains, ...)
  agentls run [--json] [--config FILE] "prompt"
                                          run one task in the current directory
  agentls mcp list [--json] [--config FILE] [--workspace DIR]
  agentls mcp trust NAME [--workspace DIR]
  agentls mcp revoke NAME|--all [--workspace DIR]
  agentls mcp login NAME [--workspace DIR]    authorize agentls with a remote server (OAuth)
  agentls mcp logout NAME [--workspace DIR]   forget its token
  agentls doctor [--config FILE] [--workspace DIR]
  agentls version

config: ~/.config/agentls/config.toml (or --config / AGENTLS_CONFIG)
model:  set ANTHROPIC_API_KEY, or OPENAI_API_KEY, or run Ollama on localhost
`

func main() {
	sandbox.Hook() // the launcher of confined commands: `agentls __agentls_confine ...` never returns
	proc.Hook()    // the guard that ends process groups if agentls is killed: `agentls __agentls_guard` never returns
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return cmdServe(args)
	case "acp":
		return cmdACP(args)
	case "run":
		return cmdRun(args)
	case "mcp":
		if len(args) == 0 {
			fmt.Fprint(os.Stderr, "agentls mcp: missing subcommand (expected list, trust, revoke, login or logout)\n\n"+usage)
			return 2
		}
		sub, rest := args[0], args[1:]
		switch sub {
		case "list":
			return cmdMCPList(rest)
		case "trust":
			return cmdMCPTrust(rest)
		case "revoke":
			return cmdMCPRevoke(rest)
		case "login":
			return cmdMCPLogin(rest)
		case "logout":
			return cmdMCPLogout(rest)
		case "probe": // hidden: the conformance suite's client (scripts/test.sh)
			return cmdMCPProbe(rest)
		}
		fmt.Fprintf(os.Stderr, "agentls mcp: unknown subcommand %q (expected list, trust, revoke, login or logout)\n", sub)
		return 2
	case "doctor":
		return cmdDoctor(args)
	case "version", "--version", "-v":
		if len(args) > 0 {
			fmt.Fprintf(os.Stderr, "agentls version: unexpected argument %q (usage: agentls version)\n", args[0])
			return 2
		}
		fmt.Println("agentls", version)
		return 0
	case "help", "--help", "-h":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "agentls: unknown command %q\n\n%s", cmd, usage)
	return 2
}
