package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// cmdChat is `agentls chat [--config FILE] [--session ID | --continue]`:
// a conversation on the terminal, driving the same core as agentls run
// (one task per turn, the session carried from turn to turn). Ctrl-C
// cancels the turn; at an empty prompt a second Ctrl-C (or Ctrl-D) ends
// the chat. Exit 0 when the user ends it, 1 on an error opening it, 2 on
// usage errors (or without a terminal).
func cmdChat(args []string) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	configPath := fs.String("config", "", "user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)")
	sessionID := fs.String("session", "", "continue the session with this id (agentls sessions lists them)")
	cont := fs.Bool("continue", false, "continue this workspace's latest session")
	operands, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if len(operands) > 0 {
		fmt.Fprintf(os.Stderr, "agentls chat: unexpected argument %q (usage: agentls chat [--config FILE] [--session ID | --continue]; type the prompt in the chat, or use agentls run \"prompt\")\n", operands[0])
		return 2
	}
	if !isTerminal(os.Stdin) || !isTerminal(os.Stdout) {
		fmt.Fprintln(os.Stderr, `agentls chat: standard input and output must be a terminal (for a script, use agentls run "prompt")`)
		return 2
	}
	if *cont && *sessionID != "" {
		fmt.Fprintln(os.Stderr, "agentls chat: --session and --continue both name a session: give one")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	core, root, code := openTaskCore(ctx, "chat", *configPath)
	if code >= 0 {
		return code
	}
	defer core.Close()
	id, code := chosenSession(core, root, "chat", *sessionID, *cont)
	if code >= 0 {
		return code
	}
	c := newChat(core, root, os.Stdin, os.Stdout)
	if id == "" {
		// A language server on this workspace (Helix's code actions) is
		// in a session: the chat joins it, so both share the conversation.
		if l, ok := core.LiveSession(agent.FrontLSP); ok {
			id, c.joined = l.SessionID, strings.TrimSpace(strings.TrimPrefix(l.Front, agent.FrontLSP))
			if c.joined == "" {
				c.joined = "an editor"
			}
		}
	}
	return c.run(ctx, id)
}

// chosenSession is the session --session or --continue name ("" for a
// new one); code is -1 to go on, else the exit code after the message.
func chosenSession(core *agent.Core, root, cmd, id string, cont bool) (string, int) {
	if cont {
		sessions, err := core.Sessions()
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls %s: --continue: %v\n", cmd, err)
			return "", 1
		}
		if len(sessions) == 0 {
			fmt.Fprintf(os.Stderr, "agentls %s: --continue: no earlier session in %s: run without it to start one\n", cmd, root)
			return "", 1
		}
		id = sessions[0].SessionID
	}
	if id != "" {
		if _, err := core.SessionExists(id); err != nil {
			fmt.Fprintf(os.Stderr, "agentls %s: --session: %v\n", cmd, err)
			return "", 2
		}
	}
	return id, -1
}

// chat is one conversation on the terminal.
type chat struct {
	core    *agent.Core
	root    string
	kb      *keyboard
	out     io.Writer
	st      styles
	width   func() int
	hist    history
	session string     // "" until the first turn starts one
	total   wire.Usage // the session's tokens in this chat
	cost    prices
	joined  string // the editor whose language server's session the chat joined at start
}

func newChat(core *agent.Core, root string, in *os.File, out *os.File) *chat {
	c := &chat{core: core, root: root, kb: newKeyboard(in, out), out: out,
		st: newStyles(os.Getenv("NO_COLOR") == ""), cost: pricesOf(core.Config())}
	c.width = func() int {
		w, _, err := term.GetSize(int(out.Fd()))
		if err != nil {
			return 0
		}
		return w
	}
	return c
}

// prompt is the chat's input prompt.
func (c *chat) prompt() string { return c.st.bold + "› " + c.st.reset }

func (c *chat) run(ctx context.Context, session string) int {
	c.say("agentls chat in %s · model %s · /help for commands · Ctrl-C cancels a turn, Ctrl-D ends the chat", oneLine(c.root), oneLine(c.core.Config().Model.Name))
	if session != "" {
		c.resume(session)
	}
	if c.joined != "" {
		c.say("── this is the session of %s's language server in this workspace: its code actions and what you type here share it (/new starts another)", oneLine(c.joined))
	}
	interrupted := false
	for {
		line, err := c.kb.readLine(ctx, c.prompt(), &c.hist)
		switch {
		case errors.Is(err, errInterrupt):
			if line == "" && interrupted {
				return 0
			}
			if line == "" {
				c.say("(Ctrl-C again, or Ctrl-D, ends the chat)")
			}
			interrupted = line == ""
			continue
		case err != nil: // end of input, or SIGTERM
			return 0
		}
		interrupted = false
		c.hist.add(line)
		text := strings.TrimSpace(line)
		switch {
		case text == "":
		case strings.HasPrefix(text, "/"):
			if c.command(ctx, text) {
				return 0
			}
		default:
			c.turn(ctx, agent.RunRequest{Prompt: text, SessionID: c.session})
		}
	}
}

// say prints one line of the chat's own (not the model's).
func (c *chat) say(format string, a ...any) {
	fmt.Fprintf(c.out, c.st.dim+format+c.st.reset+"\n", a...)
}

// turn runs one task in the session and shows it; Ctrl-C cancels it,
// and so does the end of ctx.
func (c *chat) turn(ctx context.Context, req agent.RunRequest) {
	sink := &chatSink{out: c.out, st: c.st, width: c.width}
	ap := &chatApprover{c: c}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	task := c.core.Start(req, agent.TaskIO{Approver: ap, Events: sink})
	ap.cancel = func() { c.core.Cancel(task.ID) }
	for done := false; !done; {
		select {
		case <-task.Done():
			done = true
		case <-sigs:
			sink.finish()
			c.say("cancelling the turn…")
			c.core.Cancel(task.ID)
		case <-ctx.Done(): // SIGTERM, or the terminal hung up
			c.core.Cancel(task.ID)
			<-task.Done()
			return
		}
	}
	sink.finish()
	res := task.Result()
	c.session = res.SessionID
	if err := c.core.SetLive(c.session, agent.FrontChat, ""); err != nil {
		c.say("agentls: recording the workspace's live session (for an editor's code actions to join): %s", oneLine(err.Error()))
	}
	c.total.InputTokens += res.Usage.InputTokens
	c.total.OutputTokens += res.Usage.OutputTokens
	c.total.CacheReadTokens += res.Usage.CacheReadTokens
	c.total.CacheWriteTokens += res.Usage.CacheWriteTokens
	switch res.StopReason {
	case wire.StopEndTurn:
	case wire.StopCancelled:
		c.say("cancelled: what streamed is kept in the session")
	default:
		msg := res.Error
		if msg == "" {
			msg = string(res.StopReason)
		}
		fmt.Fprintf(c.out, "%sagentls: %s%s\n", c.st.red, oneLine(msg), c.st.reset)
	}
	c.say("── %s", chatUsageLine(res.Usage, c.total, c.cost.of(res.Usage), c.cost.of(c.total)))
}

// resume makes id the chat's session and shows its conversation.
func (c *chat) resume(id string) {
	evs, err := c.core.Replay(id)
	if err != nil {
		fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
		return
	}
	c.session, c.total = id, wire.Usage{}
	sink := &chatSink{out: c.out, st: c.st, width: func() int { return 0 }}
	for _, e := range evs {
		if e.Type == wire.EventPrompt {
			sink.finish()
			fmt.Fprintf(c.out, "%s%s%s\n", c.prompt(), oneLine(e.Text), c.st.reset)
			continue
		}
		sink.Event(e)
	}
	sink.finish()
	c.say("── session %s resumed: what you type continues it", id)
}

// chatCommands are the chat's own commands, for /help.
var chatCommands = [][2]string{
	{"/new", "start a new session (the current one stays, /resume reopens it)"},
	{"/compact", "compact the session: older turns summarized, the last kept"},
	{"/sessions", "list this workspace's sessions"},
	{"/resume [N|ID]", "reopen a session: its number in /sessions, or its id; without one, pick"},
	{"/rewind [N]", "put the files of turn N and later turns back as before it, and continue from there; without N, pick"},
	{"/model [PROFILE]", "switch the session's model for the next turn; without PROFILE, list them"},
	{"/mcp", "the MCP servers and their state"},
	{"/help", "this list"},
	{"/quit", "end the chat (also Ctrl-D)"},
}

// command runs a / command; true when the chat should end.
func (c *chat) command(ctx context.Context, text string) bool {
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		for _, cmd := range chatCommands {
			fmt.Fprintf(c.out, "  %-16s %s\n", cmd[0], cmd[1])
		}
		for _, p := range c.core.Prompts() {
			if name := p.CommandName(); name != "" {
				usage := "/" + name
				if u := p.ArgumentsUsage(); u != "" {
					usage += " " + u
				}
				fmt.Fprintf(c.out, "  %-16s %s\n", trust.Visible(usage), oneLine(p.CommandDescription()))
			}
		}
	case "/new":
		c.session = c.core.NewChat(c.session)
		c.total = wire.Usage{}
		c.say("new session %s", c.session)
	case "/compact":
		if c.session == "" {
			c.say("nothing to compact yet")
			return false
		}
		r, err := c.core.Compact(ctx, c.session)
		if err != nil {
			fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
			return false
		}
		c.say("compacted: about %s tokens sent next, from %s", agent.Thousands(r.TokensAfter), agent.Thousands(r.TokensBefore))
	case "/sessions":
		c.listSessions()
	case "/resume":
		c.pickSession(ctx, arg)
	case "/rewind":
		c.rewind(ctx, arg)
	case "/model":
		c.model(arg)
	case "/mcp":
		servers := c.core.Servers()
		if len(servers) == 0 {
			c.say("no MCP servers configured")
		}
		for _, s := range servers {
			fmt.Fprintf(c.out, "  %-20s %-16s %d tool(s)\n", oneLine(s.Name), s.State, len(s.Tools))
		}
	default:
		// An MCP prompt of a connected server: "/server.prompt args".
		if ref, problem, ok := c.core.PromptCommand(text); ok {
			if problem != "" {
				fmt.Fprintf(c.out, "agentls: %s\n", oneLine(problem))
				return false
			}
			c.turn(ctx, agent.RunRequest{MCPPrompt: ref, SessionID: c.session})
			return false
		}
		c.say("%s is not a command: /help lists them (an MCP server's prompts too, once it is connected)", oneLine(name))
	}
	return false
}

// model switches the session's model profile, or lists the profiles.
func (c *chat) model(name string) {
	if name == "" {
		cur := c.core.Profile(c.session)
		for _, m := range c.core.Models() {
			here := " "
			if m.Profile == cur {
				here = "*"
			}
			what := m.Provider + " " + m.Name
			if m.Error != "" {
				what = "unusable: " + m.Error
			}
			fmt.Fprintf(c.out, "%s %-16s %s\n", here, trust.Visible(m.Profile), oneLine(what))
		}
		return
	}
	// Before the first turn the session has no id yet: the profile is
	// then that of new sessions, which the first turn's takes.
	if err := c.core.SetModel(c.session, name); err != nil {
		fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
		return
	}
	m := c.core.ModelOf(c.session)
	c.say("model: %s (%s %s) from the next turn", trust.Visible(m.Profile), m.Provider, oneLine(m.Name))
}

// listSessions prints the workspace's sessions, numbered for /resume.
func (c *chat) listSessions() []wire.SessionInfo {
	sessions, err := c.core.Sessions()
	if err != nil {
		fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
		return nil
	}
	if len(sessions) == 0 {
		c.say("no sessions yet in %s", oneLine(c.root))
	}
	for i, s := range sessions {
		here := " "
		if s.SessionID == c.session {
			here = "*"
		}
		fmt.Fprintf(c.out, "%s%3d  %s  %s  %d turn(s)  %s\n", here, i+1, s.SessionID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns, oneLine(s.Title))
	}
	return sessions
}

// pickSession resumes the session arg names (a number of the list, or
// an id), or asks which.
func (c *chat) pickSession(ctx context.Context, arg string) {
	if arg == "" {
		sessions := c.listSessions()
		if len(sessions) == 0 {
			return
		}
		line, err := c.kb.readLine(ctx, "resume which (number, Enter for none)? ", nil)
		if err != nil || strings.TrimSpace(line) == "" {
			return
		}
		arg = strings.TrimSpace(line)
	}
	if n, err := strconv.Atoi(arg); err == nil {
		sessions, _ := c.core.Sessions()
		if n < 1 || n > len(sessions) {
			c.say("no session %d: /sessions lists %d", n, len(sessions))
			return
		}
		arg = sessions[n-1].SessionID
	}
	if _, err := c.core.SessionExists(arg); err != nil {
		fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
		return
	}
	c.resume(arg)
}

// rewind is /rewind [N]: the turn to go back before (listed and asked
// for when arg is empty), its files put back through the core, asking in
// the chat when some changed outside agentls since.
func (c *chat) rewind(ctx context.Context, arg string) {
	if c.session == "" {
		c.say("nothing to rewind yet: no turn in this chat")
		return
	}
	if arg == "" {
		turns, err := c.core.Turns(c.session)
		if err != nil {
			fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
			return
		}
		if len(turns.Turns) == 0 {
			c.say("no turn to rewind in session %s", c.session)
			return
		}
		for _, t := range turns.Turns {
			fmt.Fprintf(c.out, "%4d  %s  (%d file(s))\n", t.Turn, oneLine(t.Prompt), len(t.Files))
		}
		line, err := c.kb.readLine(ctx, "go back to before which turn (number, Enter for none)? ", nil)
		if err != nil || strings.TrimSpace(line) == "" {
			return
		}
		arg = strings.TrimSpace(line)
	}
	n, err := strconv.Atoi(arg)
	if err != nil {
		c.say("%q is not a turn number: /rewind lists the turns", oneLine(arg))
		return
	}
	res, rewound, err := c.core.RewindAsking(ctx, c.session, n, nil, &chatApprover{c: c})
	switch {
	case err != nil:
		fmt.Fprintf(c.out, "agentls: %s\n", oneLine(err.Error()))
	case !rewound:
		c.say("kept the files changed outside agentls: nothing was rewound")
	default:
		printRewind(c.out, res)
		c.say("── what you type continues from before turn %d", n)
	}
}

// chatApprover asks a turn's cards in the chat, in place: the card, then
// its keys on the prompt line. Ctrl-C at a card denies it and cancels the
// turn. A key the card does not list asks again.
type chatApprover struct {
	c      *chat
	cancel func()
	mu     sync.Mutex // one card at a time
}

func (ap *chatApprover) RequestApproval(ctx context.Context, a wire.Approval) (string, error) {
	ap.mu.Lock()
	defer ap.mu.Unlock()
	c := ap.c
	if a.Kind == wire.ApprovalElicitation {
		fmt.Fprintf(c.out, "%sagentls: %s asks a question; the chat cannot show its form yet: declined.%s\n", c.st.yellow, oneLine(a.Server), c.st.reset)
		printCard(c.out, a)
		return wire.OptionDecline, nil
	}
	c.kb.drop() // nothing typed before the card answers it
	fmt.Fprintf(c.out, "\n%s%s%s\n", c.st.bold, oneLine(a.Title), c.st.reset)
	io.WriteString(c.out, c.styledDetail(trust.VisibleText(a.Detail)))
	for {
		line, err := c.kb.readLine(ctx, c.st.yellow+cardKeys(a)+c.st.reset, nil)
		switch {
		case errors.Is(err, errInterrupt):
			c.say("denied; cancelling the turn…")
			if ap.cancel != nil {
				ap.cancel()
			}
			return string(wire.OptionRejectOnce), nil
		case err != nil:
			return "", err
		}
		if opt, ok := cardAnswer(a, line); ok {
			return opt, nil
		}
		c.say("%q is not one of the answers: type one of the keys in brackets (Enter alone denies)", oneLine(strings.TrimSpace(line)))
	}
}

// styledDetail colors a card's diff: removed lines red, added green.
func (c *chat) styledDetail(detail string) string {
	var b strings.Builder
	inDiff := false
	for _, l := range strings.SplitAfter(detail, "\n") {
		if strings.HasPrefix(l, "@@ ") {
			inDiff = true
			b.WriteString(c.st.code + l + c.st.reset)
			continue
		}
		if inDiff {
			switch rest := strings.TrimLeft(l, " 0123456789"); {
			case strings.HasPrefix(rest, "-"):
				b.WriteString(c.st.red + strings.TrimSuffix(l, "\n") + c.st.reset + "\n")
				continue
			case strings.HasPrefix(rest, "+"):
				b.WriteString(c.st.green + strings.TrimSuffix(l, "\n") + c.st.reset + "\n")
				continue
			}
		}
		b.WriteString(l)
	}
	if !strings.HasSuffix(detail, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
