package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// subcommand is one command of the binary: how it is run and what its
// --help says. The dispatch of main and every --help answer come from the
// one table, so a command cannot exist without its usage.
type subcommand struct {
	name    string // as typed: "run", "mcp list"
	usage   string // the synopsis after "agentls "
	summary string // one line for the overview
	args    string // the arguments and flags, one per line
	example string // a command line to copy
	run     func(args []string) int
}

// subcommands are the commands `agentls help` lists, in its order. Groups
// (mcp) are the commands whose name is a prefix of others'.
var subcommands []subcommand

func init() {
	subcommands = []subcommand{
		{name: "serve", usage: "serve [--config FILE]", summary: "serve LSP on stdio (what editors run; also plain `agentls`)",
			args:    "--config FILE   user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)\n--stdio         accepted because editors pass it: stdio is the only transport",
			example: "agentls serve", run: cmdServe},
		{name: "acp", usage: "acp [--config FILE]", summary: "serve the Agent Client Protocol on stdio (Zed, JetBrains, ...)",
			args:    "--config FILE   user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)",
			example: `zed settings: "agent_servers": {"agentls": {"command": "agentls", "args": ["acp"]}}`, run: cmdACP},
		{name: "run", usage: `run [--json] [--config FILE] [--session ID | --continue] [--mode MODE] [--model PROFILE] [--rewind TURN] "prompt"`, summary: "run one task in the current directory",
			args: `"prompt"          what the agent should do (the words are joined)
--json            print the event stream (docs/protocol.md section 3), one JSON object per line
--config FILE     user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)
--session ID      continue this session (agentls sessions lists them)
--continue        continue this workspace's latest session
--mode MODE       plan (read-only), ask, auto-edit or autopilot (default [agent] mode, else ask)
--model PROFILE   the model profile of the turn: default ([model]) or a [model.profiles.NAME];
                  with --session or --continue the session keeps it
exit codes        0 done, 1 error, 2 usage, 3 cut at max_tokens, 4 refused,
                  5 an approval was needed and nobody could be asked (no terminal), 130 interrupted`,
			example: `agentls run "add a test for the parser"`, run: cmdRun},
		{name: "chat", usage: "chat [--config FILE] [--session ID | --continue]", summary: "a conversation with the agent on the terminal",
			args: `--config FILE     user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)
--session ID      continue this session (agentls sessions lists them; a Helix code action's too)
--continue        continue this workspace's latest session
in the chat       Enter sends; the arrow keys edit and go through what you typed; Ctrl-C cancels
                  a turn (at an empty prompt, twice, it ends the chat; so does Ctrl-D);
                  /new /compact /sessions /resume /model /mcp /help /quit`,
			example: "agentls chat --continue", run: cmdChat},
		{name: "sessions", usage: "sessions [list] [--json] [--config FILE] [--workspace DIR]", summary: "list the workspace's sessions, newest first",
			args:    "--json            print {\"sessions\": [...]} (docs/protocol.md, agent/sessions)\n--config FILE     user config file\n--workspace DIR   workspace folder (default the current directory)\nshow ID           print a session's transcript (agentls sessions show --help)\nresume ID         continue it in agentls chat",
			example: "agentls sessions", run: cmdSessions},
		{name: "sessions list", usage: "sessions list [--json] [--config FILE] [--workspace DIR]", summary: "list the workspace's sessions (as agentls sessions)",
			args:    "--json            print {\"sessions\": [...]}\n--config FILE     user config file\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls sessions list --json", run: cmdSessions},
		{name: "sessions show", usage: "sessions show ID [--config FILE] [--workspace DIR]", summary: "print a session's Markdown transcript",
			args:    "ID                a session id, as agentls sessions lists it\n--config FILE     user config file\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls sessions show 20261203-101500-1a2b3c4d | less", run: cmdSessionsShow},
		{name: "sessions resume", usage: "sessions resume ID [--config FILE]", summary: "continue a session in agentls chat",
			args:    "ID                a session id of this workspace, as agentls sessions lists it\n--config FILE     user config file",
			example: "agentls sessions resume 20261203-101500-1a2b3c4d", run: cmdSessionsResume},
		{name: "mcp", usage: "mcp list|trust|revoke|login|logout|serve|client-metadata ...", summary: "MCP servers: list them, approve a workspace's, OAuth login",
			args:    "list              the server list, without a model\ntrust             approve a workspace server's launch\nrevoke            forget launch approvals\nlogin             authorize agentls with a remote server (OAuth)\nlogout            forget its token\nserve             the editor as an MCP server for an outside agent\nclient-metadata   the OAuth client metadata document to host\n(agentls mcp SUBCOMMAND --help says more)",
			example: "agentls mcp list", run: cmdMCP},
		{name: "mcp list", usage: "mcp list [--json] [--config FILE] [--workspace DIR]", summary: "the MCP server list, without a model",
			args:    "--json            print {\"servers\": [...]} (docs/protocol.md section 2)\n--config FILE     user config file\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls mcp list --workspace ~/src/project", run: cmdMCPList},
		{name: "mcp trust", usage: "mcp trust NAME [--config FILE] [--workspace DIR]", summary: "approve a workspace server's launch",
			args:    "NAME              the server's name in the workspace's .agentls.toml\n--config FILE     user config file\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls mcp trust github", run: cmdMCPTrust},
		{name: "mcp revoke", usage: "mcp revoke NAME|--all [--workspace DIR]", summary: "forget launch approvals",
			args:    "NAME              the server whose approval to forget\n--all             every launch approval of the workspace\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls mcp revoke --all", run: cmdMCPRevoke},
		{name: "mcp login", usage: "mcp login NAME [--workspace DIR]", summary: "authorize agentls with a remote server (OAuth)",
			args:    "NAME              a remote server (url = ...) of the config\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls mcp login linear", run: cmdMCPLogin},
		{name: "mcp logout", usage: "mcp logout NAME [--workspace DIR]", summary: "forget a remote server's token",
			args:    "NAME              a remote server of the config\n--workspace DIR   workspace folder (default the current directory)",
			example: "agentls mcp logout linear", run: cmdMCPLogout},
		{name: "mcp serve", usage: "mcp serve [--http] [--no-editor] [--config FILE] [--workspace DIR]", summary: "the editor as an MCP server for an outside agent (stdio, or loopback HTTP with a token)",
			args: `--http            Streamable HTTP on 127.0.0.1 (random port, bearer token in a 0600 file; prints the URL,
                  the file and a config to paste), cards asked on this terminal
--no-editor       serve the folder's disk even when an editor session serves it
--config FILE     user config file
--workspace DIR   workspace folder (default the current directory)
on stdio          proxies to the running agentls editor session of the folder ([serve] mcp = true), so
                  the tools act on that editor and its cards; without one it serves the disk, offering
                  nothing that asks`,
			example: "claude mcp add agentls -- agentls mcp serve", run: cmdMCPServe},
		{name: "mcp client-metadata", usage: "mcp client-metadata URL", summary: "print the OAuth Client ID Metadata Document to host at URL",
			args:    "URL               the https URL it will be served at (application/json), the value of oauth_client_metadata_url",
			example: "agentls mcp client-metadata https://example.com/agentls/client.json > client.json", run: cmdMCPClientMetadata},
		{name: "rules", usage: "rules list|revoke ...", summary: "the saved \"always allow\" rules of a workspace",
			args:    "list     the rules (a card's \"Always allow\" saves them)\nrevoke   forget one\n(agentls rules SUBCOMMAND --help says more)",
			example: "agentls rules list", run: cmdRules},
		{name: "rules list", usage: "rules list [--json] [--workspace DIR | --all]", summary: "list the saved rules",
			args:    "--json            print {\"rules\": [...]} as agent/rules answers (docs/protocol.md section 2)\n--workspace DIR   workspace folder (default the current directory)\n--all             every workspace's rules",
			example: "agentls rules list --all", run: func(args []string) int { return cmdRules(append([]string{"list"}, args...)) }},
		{name: "rules revoke", usage: "rules revoke ID [--workspace DIR]", summary: "forget a saved rule",
			args:    "ID                the rule as list prints it: \"command: go test ./...\" or \"write: src/api\"\n--workspace DIR   workspace folder (default the current directory)",
			example: `agentls rules revoke "command: go test ./..."`, run: func(args []string) int { return cmdRules(append([]string{"revoke"}, args...)) }},
		{name: "doctor", usage: "doctor [--config FILE] [--workspace DIR]", summary: "check the config, the model and every server",
			args:    "--config FILE     user config file\n--workspace DIR   workspace folder (default the current directory)\nexit codes        0 everything is usable, 1 a problem was found",
			example: "agentls doctor", run: cmdDoctor},
		{name: "version", usage: "version", summary: "print the version", args: "(none)", example: "agentls version", run: cmdVersion},
		{name: "help", usage: "help [COMMAND]", summary: "this overview, or a command's usage",
			args: "COMMAND   a command, as typed: run, mcp list, ...", example: "agentls help mcp trust", run: cmdHelp},
	}
}

// isGroup reports whether name is a group's (mcp, rules): a prefix of
// another command's name.
func isGroup(name string) bool {
	for _, c := range subcommands {
		if strings.HasPrefix(c.name, name+" ") {
			return true
		}
	}
	return false
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "--help" || arg == "-h" || arg == "-help" }

// findSubcommand is the longest command of the table args start with, and
// the arguments after its name.
func findSubcommand(args []string) (*subcommand, []string) {
	var found *subcommand
	rest := args
	for i := range subcommands {
		c := &subcommands[i]
		words := strings.Fields(c.name)
		if len(words) > len(args) || (found != nil && len(words) <= len(strings.Fields(found.name))) {
			continue
		}
		if strings.Join(args[:len(words)], " ") == c.name {
			found, rest = c, args[len(words):]
		}
	}
	return found, rest
}

// wantsHelp reports whether the arguments ask for the command's help: a
// -h or --help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if isHelp(a) {
			return true
		}
	}
	return false
}

// printHelp writes c's usage, arguments and example.
func printHelp(w io.Writer, c *subcommand) {
	fmt.Fprintf(w, "usage: agentls %s\n\n%s\n\narguments:\n", c.usage, c.summary)
	for _, l := range strings.Split(c.args, "\n") {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "\nexample:\n  %s\n", c.example)
}

// overview is what `agentls help` prints: every command's synopsis.
func overview() string {
	var b strings.Builder
	b.WriteString("agentls: an LSP server that hosts an AI coding agent\n\nusage:\n")
	for _, c := range subcommands {
		if isGroup(c.name) {
			continue // its subcommands are listed
		}
		if len(c.usage) > 40 {
			fmt.Fprintf(&b, "  agentls %s\n  %-48s %s\n", c.usage, "", c.summary)
			continue
		}
		fmt.Fprintf(&b, "  agentls %-40s %s\n", c.usage, c.summary)
	}
	b.WriteString(`
agentls COMMAND --help says more about each.
config: ~/.config/agentls/config.toml (or --config / AGENTLS_CONFIG)
model:  set ANTHROPIC_API_KEY, or OPENAI_API_KEY, or run Ollama on localhost
`)
	return b.String()
}

func cmdHelp(args []string) int {
	if len(args) == 0 {
		fmt.Print(overview())
		return 0
	}
	c, rest := findSubcommand(args)
	if c == nil || len(rest) > 0 {
		fmt.Fprintf(os.Stderr, "agentls help: no command %q (agentls help lists them)\n", strings.Join(args, " "))
		return 2
	}
	printHelp(os.Stdout, c)
	return 0
}

func cmdVersion(args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "agentls version: unexpected argument %q (usage: agentls version)\n", args[0])
		return 2
	}
	fmt.Println("agentls", version)
	return 0
}

// mcpSubcommands is what `agentls mcp` expects after it.
const mcpSubcommands = "expected list, trust, revoke, login, logout, serve or client-metadata"

// cmdMCP is `agentls mcp` without a known subcommand.
func cmdMCP(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(os.Stderr, "agentls mcp: missing subcommand (%s)\n\n%s", mcpSubcommands, overview())
		return 2
	}
	if args[0] == "probe" { // hidden: the conformance suite's client (scripts/test.sh)
		return cmdMCPProbe(args[1:])
	}
	fmt.Fprintf(os.Stderr, "agentls mcp: unknown subcommand %q (%s)\n", args[0], mcpSubcommands)
	return 2
}
