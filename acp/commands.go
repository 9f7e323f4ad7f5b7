package acp

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/wire"
)

// command is one slash command the editor offers in its prompt box; hint,
// when set, says what to type after its name (given to run as arg).
type command struct {
	name, description, hint string
	run                     func(s *session, ctx context.Context, arg string) string
}

// commands are this agent's slash commands, in the order they are offered.
var commands = []command{
	{"compact", "Summarize the older turns of this conversation so it fits the model's context (nothing is deleted)", "", noArg((*session).compact)},
	{"mcp", "List the MCP servers, their state and their tools' policy", "", noArg((*session).mcpList)},
	{"new", "Start a new conversation in this session (the old one stays in session/list)", "", noArg((*session).newConversation)},
	{"login", "Log in to a remote MCP server (OAuth): its authorization page opens in your browser", "server name", (*session).login},
}

func noArg(f func(*session, context.Context) string) func(*session, context.Context, string) string {
	return func(s *session, ctx context.Context, _ string) string { return f(s, ctx) }
}

// announceCommands tells the editor which slash commands exist: ours,
// then one per prompt of the connected MCP servers ("/server.prompt").
// It returns what it announced, to tell a change from it.
func (s *session) announceCommands() string {
	list := make([]availableCommand, 0, len(commands))
	for _, c := range commands {
		ac := availableCommand{Name: c.name, Description: c.description}
		if c.hint != "" {
			ac.Input = &commandInput{Hint: c.hint}
		}
		list = append(list, ac)
	}
	prompts := promptCommands(s.core)
	list = append(list, prompts...)
	s.send(sessionUpdate{SessionUpdate: updateAvailableCommands, AvailableCommands: list})
	return commandsKey(prompts)
}

// slashCommand recognizes a prompt that is one of our commands ("/mcp",
// "/login NAME") and returns what follows its name.
func slashCommand(text string) (command, string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "/")
	if !ok {
		return command{}, "", false
	}
	name, arg, _ := strings.Cut(rest, " ")
	for _, c := range commands {
		if c.name == name && (c.hint != "" || strings.TrimSpace(arg) == "") {
			return c, strings.TrimSpace(arg), true
		}
	}
	return command{}, "", false
}

// runCommand answers a slash command with an agent message; no model runs.
func (s *session) runCommand(ctx context.Context, c command, arg string) (promptResponse, error) {
	s.send(sessionUpdate{SessionUpdate: updateAgentMessage, Content: ptr(textBlock(c.run(s, ctx, arg)))})
	return promptResponse{StopReason: StopEndTurn}, nil
}

// login runs a remote server's OAuth login (Core.LoginServer): the
// authorization page goes to the editor (elicitation/create url mode, or
// an agent message with the URL) and the turn ends when the browser came
// back to agentls's loopback listener, or at approval_timeout.
func (s *session) login(ctx context.Context, name string) string {
	if name == "" {
		return "Which server? Type /login NAME (see /mcp for the names)."
	}
	out, err := s.core.LoginServer(ctx, name, s.approver())
	switch {
	case err != nil:
		return "Login to " + name + " failed: " + err.Error()
	case out.State == wire.ServerNeedsApproval || out.State == wire.ServerApprovalStale:
		return name + " comes from the project's config and is not approved yet (" + string(out.State) + "): approve its launch first."
	case !out.TokenStored:
		return name + " connected without asking for authorization; no token was stored."
	}
	return "Logged in to " + name + " (" + string(out.State) + "); the token is stored in agentls's state folder (mode 0600)."
}

func ptr[T any](v T) *T { return &v }

// mcpList is the server list, one line per server and tool, with the
// policy column the core fills (the same decision a call gets).
func (s *session) mcpList(context.Context) string {
	rows := s.core.ServerList()
	if len(rows) == 0 {
		return "No MCP servers are configured (add them under [mcp.servers] in ~/.config/agentls/config.toml, or pass them as the editor's MCP servers)."
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "- %s (%s, %s)", r.Name, r.Origin, r.State)
		if r.Error != "" {
			fmt.Fprintf(&b, ": %s", r.Error)
		}
		b.WriteString("\n")
		for _, t := range r.Tools {
			fmt.Fprintf(&b, "  - %s: %s\n", t.Name, t.Policy)
		}
	}
	return b.String()
}

// newConversation points the session at a new, empty conversation.
func (s *session) newConversation(context.Context) string {
	s.mu.Lock()
	old := s.coreID
	s.mu.Unlock()
	id := s.core.NewChat(old)
	s.mu.Lock()
	s.coreID = id
	s.mu.Unlock()
	return "Started a new conversation. The previous one is kept: load it from the session list (" + old + ")."
}

// compact compacts the conversation through the core (Core.Compact).
func (s *session) compact(ctx context.Context) string {
	s.mu.Lock()
	id := s.coreID
	s.mu.Unlock()
	res, err := s.core.Compact(ctx, id)
	if err != nil {
		return "Could not compact the conversation: " + err.Error()
	}
	return fmt.Sprintf("Compacted the conversation: about %d tokens before, %d after. The full history stays in the session file.", res.TokensBefore, res.TokensAfter)
}
