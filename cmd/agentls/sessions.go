package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// cmdSessions is `agentls sessions [list] [--json]`: the workspace's
// stored sessions, newest first, as the chat's /sessions and the editors'
// agent/sessions list them. No model and no MCP server is started.
func cmdSessions(args []string) int {
	if len(args) > 0 && args[0] == "list" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, `print {"sessions": [...]} (docs/protocol.md, agent/sessions)`)
	configPath, workspace, code := parseConfigWorkspace(fs, args, "agentls sessions [list] [--json] [--config FILE] [--workspace DIR]")
	if code >= 0 {
		return code
	}
	core, code := openSessionsCore("sessions", configPath, workspace)
	if code >= 0 {
		return code
	}
	defer core.Close()
	sessions, err := core.Sessions()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls sessions: %v\n", err)
		return 1
	}
	if *asJSON {
		if sessions == nil {
			sessions = []wire.SessionInfo{}
		}
		json.NewEncoder(os.Stdout).Encode(wire.SessionsResult{Sessions: sessions})
		return 0
	}
	if len(sessions) == 0 {
		fmt.Printf("No sessions yet in %s: agentls chat or agentls run starts one.\n", oneLine(workspace))
		return 0
	}
	for _, s := range sessions {
		pin := ""
		if s.Pinned {
			pin = "  (pinned)"
		}
		fmt.Printf("%s  %s  %3d turn(s)  %s%s\n", s.SessionID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns, oneLine(s.Title), pin)
	}
	fmt.Println("\nagentls sessions show ID prints one; agentls chat --session ID (or agentls sessions resume ID) continues it.")
	return 0
}

// cmdSessionsShow is `agentls sessions show ID`: the session's Markdown
// transcript on stdout.
func cmdSessionsShow(args []string) int {
	fs := flag.NewFlagSet("sessions show", flag.ContinueOnError)
	id, configPath, workspace, code := sessionOperand(fs, args, "agentls sessions show ID [--config FILE] [--workspace DIR]")
	if code >= 0 {
		return code
	}
	core, code := openSessionsCore("sessions show", configPath, workspace)
	if code >= 0 {
		return code
	}
	defer core.Close()
	if _, err := core.SessionExists(id); err != nil {
		fmt.Fprintf(os.Stderr, "agentls sessions show: %v\n", err)
		return 2
	}
	f, err := os.Open(core.TranscriptPath(id))
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls sessions show: %v\n", err)
		return 1
	}
	defer f.Close()
	io.Copy(os.Stdout, f)
	return 0
}

// cmdSessionsResume is `agentls sessions resume ID`: the chat on it.
func cmdSessionsResume(args []string) int {
	fs := flag.NewFlagSet("sessions resume", flag.ContinueOnError)
	cfg := fs.String("config", "", "user config file")
	operands, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if len(operands) != 1 {
		fmt.Fprintln(os.Stderr, "agentls sessions resume: give one session id (agentls sessions lists them)")
		return 2
	}
	chatArgs := []string{"--session", operands[0]}
	if *cfg != "" {
		chatArgs = append(chatArgs, "--config", *cfg)
	}
	return cmdChat(chatArgs)
}

// sessionOperand parses ID [--config FILE] [--workspace DIR].
func sessionOperand(fs *flag.FlagSet, args []string, usage string) (id, configPath, workspace string, code int) {
	var rest []string
	for i := 0; i < len(args); i++ { // the id may come before or after the flags
		a := args[i]
		switch {
		case isHelp(a) || (len(a) > 0 && a[0] == '-' && strings.Contains(a, "=")):
			rest = append(rest, a)
		case len(a) > 0 && a[0] == '-': // --config FILE, --workspace DIR
			rest = append(rest, a)
			if i+1 < len(args) {
				rest = append(rest, args[i+1])
				i++
			}
		case id == "":
			id = a
		default:
			rest = append(rest, a) // parseConfigWorkspace says it is unexpected
		}
	}
	configPath, workspace, code = parseConfigWorkspace(fs, rest, usage)
	if code < 0 && id == "" {
		fmt.Fprintf(os.Stderr, "agentls %s: give a session id (usage: %s)\n", fs.Name(), usage)
		code = 2
	}
	return id, configPath, workspace, code
}

// openSessionsCore opens the core of a workspace for its stored sessions
// only: no model is asked and no MCP server started.
func openSessionsCore(cmd, configPath, workspace string) (*agent.Core, int) {
	cfg := config.Load(configPath, []string{workspace})
	if configUnusable(cmd, cfg) {
		return nil, 1
	}
	core, err := agent.Open(agent.Setup{Config: cfg, Roots: []string{workspace}, Logf: logf})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls %s: %v\n", cmd, err)
		return nil, 1
	}
	return core, -1
}
