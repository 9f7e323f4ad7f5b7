package acp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentls/agentls/trust"
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
	{"rewind", "Put the files of a turn and the later ones back as before it, and continue the conversation from there", "turn number (nothing: list the turns)", (*session).rewind},
	{"rules", "List this workspace's saved always-allow rules, or forget one", "forget RULE-ID (nothing: list them)", (*session).rules},
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

// mcpList is the server list, one line per server (with the MCP revision
// it speaks) and tool, with the policy column the core fills (the same
// decision a call gets).
func (s *session) mcpList(context.Context) string {
	rows := s.core.ServerList()
	if len(rows) == 0 {
		return "No MCP servers are configured (add them under [mcp.servers] in ~/.config/agentls/config.toml, or pass them as the editor's MCP servers)."
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "- %s (%s, %s", r.Name, r.Origin, r.State)
		if r.Revision != "" {
			fmt.Fprintf(&b, ", MCP %s over %s", r.Revision, r.Transport)
		}
		b.WriteString(")")
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

// rewind is /rewind [N]: without N the conversation's turns (agent/turns),
// with N the files of turn N and later turns put back as before it through
// the editor (fs/write_text_file where it offers it), asking with a
// permission when some changed outside agentls since (Core.RewindAsking),
// and the conversation forked there.
func (s *session) rewind(ctx context.Context, arg string) string {
	s.mu.Lock()
	id := s.coreID
	s.mu.Unlock()
	if arg == "" {
		turns, err := s.core.Turns(id)
		if err != nil {
			return "Could not list the turns: " + err.Error()
		}
		if len(turns.Turns) == 0 {
			return "No turn to rewind in this conversation yet."
		}
		var b strings.Builder
		b.WriteString("Type /rewind N to go back to before turn N:\n")
		for _, t := range turns.Turns {
			fmt.Fprintf(&b, "%d. %s (%d file(s))\n", t.Turn, trust.Visible(t.Prompt), len(t.Files))
		}
		return b.String()
	}
	n, err := strconv.Atoi(arg)
	if err != nil {
		return fmt.Sprintf("%q is not a turn number: /rewind alone lists the turns.", arg)
	}
	res, rewound, err := s.core.RewindAsking(ctx, id, n, s.files(), s.approver())
	switch {
	case err != nil:
		return "Could not rewind: " + err.Error()
	case !rewound:
		return "Kept the files changed outside agentls; nothing was rewound."
	}
	var b strings.Builder
	b.WriteString(res.Message + ". The next prompt continues from before turn " + strconv.Itoa(n) + " (this view still shows the later turns; the session file keeps them).\n")
	for _, p := range res.Restored {
		b.WriteString("- restored " + trust.Visible(p) + "\n")
	}
	for _, f := range res.NotRestored {
		b.WriteString("- not restored " + trust.Visible(f.Path) + ": " + f.Why + "\n")
	}
	return b.String()
}

// rules is /rules (the saved rules of the session's folders) and /rules
// forget ID.
func (s *session) rules(_ context.Context, arg string) string {
	folders := s.files().Folders()
	if arg != "" {
		id, ok := strings.CutPrefix(arg, "forget ")
		if !ok {
			return fmt.Sprintf("%q is not a /rules command: /rules lists the rules, /rules forget RULE-ID forgets one.", arg)
		}
		revoked, err := s.core.RevokeRule(folders, strings.TrimSpace(id), "")
		if err != nil {
			return "Could not forget the rule: " + err.Error()
		}
		return fmt.Sprintf("Forgot %d rule(s): %s. Its calls ask again.", len(revoked), trust.Visible(revoked[0].ID))
	}
	rules, err := s.core.Rules(folders)
	if err != nil {
		return "Could not list the rules: " + err.Error()
	}
	if len(rules) == 0 {
		return "No saved rules in this workspace (a permission's \"Always allow\" saves one)."
	}
	var b strings.Builder
	b.WriteString("Saved rules (/rules forget RULE-ID forgets one):\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", trust.Visible(r.ID), trust.Visible(r.Description), trust.Visible(r.Workspace))
	}
	return b.String()
}
