package acp

import (
	"context"
	"fmt"
	"strings"
)

// command is one slash command the editor offers in its prompt box.
type command struct {
	name, description string
	run               func(s *session, ctx context.Context) string
}

// commands are this agent's slash commands, in the order they are offered.
var commands = []command{
	{"compact", "Summarize the older turns of this conversation so it fits the model's context (nothing is deleted)", (*session).compact},
	{"mcp", "List the MCP servers, their state and their tools' policy", (*session).mcpList},
	{"new", "Start a new conversation in this session (the old one stays in session/list)", (*session).newConversation},
}

// announceCommands tells the editor which slash commands exist: ours,
// then one per prompt of the connected MCP servers ("/server.prompt").
// It returns what it announced, to tell a change from it.
func (s *session) announceCommands() string {
	list := make([]availableCommand, 0, len(commands))
	for _, c := range commands {
		list = append(list, availableCommand{Name: c.name, Description: c.description})
	}
	prompts := promptCommands(s.core)
	list = append(list, prompts...)
	s.send(sessionUpdate{SessionUpdate: updateAvailableCommands, AvailableCommands: list})
	return commandsKey(prompts)
}

// slashCommand recognizes a prompt that is one of our commands ("/mcp").
func slashCommand(text string) (command, bool) {
	name, ok := strings.CutPrefix(strings.TrimSpace(text), "/")
	if !ok {
		return command{}, false
	}
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// runCommand answers a slash command with an agent message; no model runs.
func (s *session) runCommand(ctx context.Context, c command) (any, error) {
	s.send(sessionUpdate{SessionUpdate: updateAgentMessage, Content: ptr(textBlock(c.run(s, ctx)))})
	return promptResponse{StopReason: StopEndTurn}, nil
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
