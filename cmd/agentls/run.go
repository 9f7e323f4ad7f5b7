package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
)

// cmdRun is `agentls run [--json] [--config FILE] "prompt"`: one task in the
// current directory. Text streams to stdout (or, with --json, one event per
// line); tool calls and approval cards go to stderr. Approvals are asked on
// the terminal; with no terminal every approval is refused and the model
// told nobody could be asked. Exit 0 when the task ends its turn, 1 on
// error or max_iterations, 3 when the answer was cut at max_tokens, 4
// when the model declined (refusal), 5 when an approval was needed and
// nobody could be asked, 130 when interrupted, 2 on usage errors.
func cmdRun(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the event stream (docs/protocol.md section 3), one JSON object per line")
	configPath := fs.String("config", "", "user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)")
	sessionID := fs.String("session", "", "continue the session with this id (as agentls prints it, or agent/sessions lists it)")
	cont := fs.Bool("continue", false, "continue this workspace's latest session")
	modeName := fs.String("mode", "", "the session's mode: plan, ask, auto-edit or autopilot (default [agent] mode, else ask)")
	profile := fs.String("model", "", "the model profile of the turn: default ([model]) or a [model.profiles.NAME] of the user config; with --session or --continue the session keeps it")
	rewindTurn := fs.Int("rewind", 0, "first put the files of this turn of the session (1 is its first prompt) and later ones back as before it, and continue from there; the prompt is then optional")
	operands, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	var mode wire.Mode
	if *modeName != "" {
		m, err := wire.ParseMode(*modeName)
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls run: --mode: %v\n", err)
			return 2
		}
		mode = m
	}
	prompt := strings.TrimSpace(strings.Join(operands, " "))
	if prompt == "" && *rewindTurn == 0 {
		fmt.Fprintln(os.Stderr, `agentls run: no prompt (usage: agentls run [--json] [--config FILE] [--session ID | --continue] [--mode MODE] [--model PROFILE] [--rewind TURN] "what the agent should do")`)
		return 2
	}
	if *cont && *sessionID != "" {
		fmt.Fprintln(os.Stderr, "agentls run: --session and --continue both name a session: give one")
		return 2
	}
	if *rewindTurn != 0 && !*cont && *sessionID == "" {
		fmt.Fprintln(os.Stderr, "agentls run: --rewind needs the session to rewind: --session ID or --continue (agentls sessions lists them)")
		return 2
	}
	// Ctrl-C or SIGTERM cancels the task; the deferred Closes then reap
	// every MCP server and command.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	core, root, code := openTaskCore(ctx, "run", *configPath)
	if code >= 0 {
		return code
	}
	defer core.Close() // every task, then every MCP server

	unanswerable := &noTerminal{out: os.Stderr}
	var ap agent.Approver = unanswerable
	if isTerminal(os.Stdin) {
		ap = &terminalApprover{in: os.Stdin, out: os.Stderr}
	}
	var sink agent.EventSink = &textSink{out: os.Stdout, info: os.Stderr, dim: isTerminal(os.Stderr)}
	if *asJSON {
		sink = &jsonSink{enc: json.NewEncoder(os.Stdout)}
	}
	if *cont {
		sessions, err := core.Sessions()
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls run: --continue: %v\n", err)
			return 1
		}
		if len(sessions) == 0 {
			fmt.Fprintf(os.Stderr, "agentls run: --continue: no earlier session in %s: run without it to start one\n", root)
			return 1
		}
		*sessionID = sessions[0].SessionID
	}
	if *sessionID != "" {
		if _, err := core.SessionExists(*sessionID); err != nil {
			fmt.Fprintf(os.Stderr, "agentls run: --session: %v\n", err)
			return 2
		}
	}
	if mode != "" {
		// A named session keeps the mode (saved with it), as --model.
		if err := core.SetMode(*sessionID, mode); err != nil {
			fmt.Fprintf(os.Stderr, "agentls run: --mode: %v\n", err)
			return 2
		}
	}
	if *profile != "" {
		// A named session keeps the profile (saved with it); a new one
		// takes it as every session not set since does.
		if err := core.SetModel(*sessionID, *profile); err != nil {
			fmt.Fprintf(os.Stderr, "agentls run: --model: %v\n", err)
			return 2
		}
	}
	if *rewindTurn != 0 {
		if code := rewindFromTerminal(ctx, core, *sessionID, *rewindTurn, ap); code != 0 || prompt == "" {
			return code
		}
	}
	task := core.Start(agent.RunRequest{Prompt: prompt, SessionID: *sessionID}, agent.TaskIO{Approver: ap, Events: sink})
	select {
	case <-task.Done():
	case <-ctx.Done():
		core.Cancel(task.ID)
		<-task.Done()
	}
	res := task.Result()
	if ts, ok := sink.(*textSink); ok {
		ts.finish()
		fmt.Fprintf(os.Stderr, "agentls: %s\n", usageLine(res.Usage, pricesOf(core.Config()).of(res.Usage)))
		fmt.Fprintf(os.Stderr, "agentls: session %s (continue it with: agentls run --session %s \"...\", or --continue)\n", res.SessionID, res.SessionID)
	}
	if n := unanswerable.unasked.Load(); n > 0 && res.StopReason != wire.StopCancelled {
		fmt.Fprintf(os.Stderr, "agentls run: %d approval(s) were needed and nobody could be asked (standard input is not a terminal): run it on a terminal to answer them\n", n)
		return exitUnasked
	}
	switch res.StopReason {
	case wire.StopEndTurn:
		return 0
	case wire.StopCancelled:
		fmt.Fprintln(os.Stderr, "agentls run: cancelled")
		return 130
	}
	msg := res.Error
	if msg == "" {
		msg = string(res.StopReason)
	}
	fmt.Fprintf(os.Stderr, "agentls run: %s\n", msg)
	switch res.StopReason {
	case wire.StopMaxTokens:
		return exitMaxTokens
	case wire.StopRefusal:
		return exitRefusal
	}
	return 1
}

// rewindFromTerminal is --rewind: the files of turn and later turns of the
// session go back as before it, asking on the terminal (ap) when some
// changed outside agentls since, and the session forks there. It prints
// what it did on stderr and returns the exit code: 0 when rewound, 2 for a
// turn the session lacks, 1 when the changed files were kept (nothing
// restored), exitUnasked when nobody could be asked.
func rewindFromTerminal(ctx context.Context, core *agent.Core, sessionID string, turn int, ap agent.Approver) int {
	res, rewound, err := core.RewindAsking(ctx, sessionID, turn, nil, ap)
	switch {
	case errors.Is(err, agent.ErrNobodyToAsk):
		fmt.Fprintf(os.Stderr, "agentls run: --rewind: %s (standard input is not a terminal: run it on a terminal to answer)\n", oneLine(res.Message))
		return exitUnasked
	case err != nil:
		fmt.Fprintf(os.Stderr, "agentls run: --rewind: %v\n", err)
		return 2
	}
	if !rewound {
		fmt.Fprintln(os.Stderr, "agentls run: --rewind: the files changed outside agentls were kept, so nothing was rewound")
		return 1
	}
	printRewind(os.Stderr, res)
	return 0
}

// printRewind says what a rewind did, a line per file.
func printRewind(w io.Writer, res wire.RewindResult) {
	fmt.Fprintf(w, "agentls: %s\n", oneLine(res.Message))
	for _, p := range res.Restored {
		fmt.Fprintf(w, "  restored %s\n", trust.Visible(p))
	}
	for _, f := range res.NotRestored {
		fmt.Fprintf(w, "  not restored %s: %s\n", trust.Visible(f.Path), oneLine(f.Why))
	}
}

// Exit codes of `agentls run` for turns that ended short of an answer.
const (
	exitMaxTokens = 3 // the answer was cut at [model] max_tokens
	exitRefusal   = 4 // the model declined to answer
	exitUnasked   = 5 // an approval was needed and nobody could be asked (no terminal)
)

// textSink streams the assistant's text to stdout and a line per tool call
// and result to stderr, so stdout holds only what the model said. The
// model's reasoning goes to stderr too, each line marked with
// reasoningMark (and dim on a terminal), never into the answer on stdout.
type textSink struct {
	out, info io.Writer
	dim       bool // stderr is a terminal: reasoning is shown dim
	mu        sync.Mutex
	midLine   bool            // stdout does not end with a newline
	reasoning bool            // stderr is in the middle of a reasoning line
	shown     map[string]bool // tool calls whose line went out, until their result
}

// reasoningMark starts each line of the model's reasoning on stderr.
const reasoningMark = "┆ "

func (s *textSink) Event(e wire.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Type != wire.EventReasoning {
		s.endReasoning()
	}
	switch e.Type {
	case wire.EventReasoning:
		s.think(e.Delta)
	case wire.EventText:
		io.WriteString(s.out, e.Delta)
		s.midLine = !strings.HasSuffix(e.Delta, "\n")
	case wire.EventToolCall:
		if !s.shown[e.ToolCallID] { // one line per call, from its first event
			if s.shown == nil {
				s.shown = map[string]bool{}
			}
			s.shown[e.ToolCallID] = true
			s.newline()
			args := string(e.Arguments)
			if r := []rune(args); len(r) > 200 {
				args = string(r[:200]) + "…"
			}
			fmt.Fprintf(s.info, "→ %s %s\n", oneLine(e.Title), oneLine(args))
		} else if e.Status == wire.StatusRunning && e.Message != "" {
			// Progress: a server's notifications/progress, or the status
			// of the task it runs the call as.
			s.newline()
			fmt.Fprintf(s.info, "  … %s\n", oneLine(e.Message))
		}
	case wire.EventToolResult:
		delete(s.shown, e.ToolCallID)
		first, _, _ := strings.Cut(e.Output, "\n")
		fmt.Fprintf(s.info, "  %s: %s\n", e.Status, oneLine(first))
	case wire.EventStatus:
		fmt.Fprintf(s.info, "agentls: %s\n", oneLine(e.Message))
	}
}

// think writes reasoning to stderr, every line marked, dim on a terminal.
func (s *textSink) think(delta string) {
	if delta == "" {
		return
	}
	var b strings.Builder
	if !s.reasoning {
		s.newline()
		b.WriteString(reasoningMark)
		s.reasoning = true
	}
	b.WriteString(strings.ReplaceAll(delta, "\n", "\n"+reasoningMark))
	out := b.String()
	if s.dim {
		out = "\x1b[2m" + out + "\x1b[22m"
	}
	io.WriteString(s.info, out)
}

// endReasoning ends the reasoning's last line before anything else is shown.
func (s *textSink) endReasoning() {
	if s.reasoning {
		io.WriteString(s.info, "\n")
		s.reasoning = false
	}
}

func (s *textSink) newline() {
	if s.midLine {
		io.WriteString(s.out, "\n")
		s.midLine = false
	}
}

func (s *textSink) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endReasoning()
	s.newline()
}

// jsonSink prints each event as one JSON line, the same params the LSP
// front's agent/event carries (wire.EventParams).
type jsonSink struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (s *jsonSink) Event(e wire.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enc.Encode(wire.EventParams(e))
}

// noTerminal refuses every approval and says so: with nobody to ask,
// nothing is approved (a script or CI job never gets a silent yes). The
// model is told nobody could be asked (agent.ErrNobodyToAsk), not that
// the user said no, and the run exits exitUnasked.
type noTerminal struct {
	out     io.Writer
	unasked atomic.Int32 // approvals refused because nobody could answer
}

func (n *noTerminal) RequestApproval(_ context.Context, a wire.Approval) (string, error) {
	if a.Kind == wire.ApprovalElicitation {
		fmt.Fprintln(n.out, "agentls: an MCP server asks a question, but standard input is not a terminal: declined.")
		printCard(n.out, a)
		return wire.OptionDecline, nil
	}
	n.unasked.Add(1)
	fmt.Fprintln(n.out, "agentls: approval needed, but standard input is not a terminal: nobody could be asked, so it is not done.")
	printCard(n.out, a)
	return "", agent.ErrNobodyToAsk
}

// terminalApprover shows each card literally on the terminal and reads the
// answer (cardAnswer): y allows once, a allows always (where offered), n or
// Enter denies; any other answer asks again.
type terminalApprover struct {
	in  io.Reader
	out io.Writer

	mu    sync.Mutex // one card at a time
	once  sync.Once
	lines chan string
}

func (t *terminalApprover) RequestApproval(ctx context.Context, a wire.Approval) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a.Kind == wire.ApprovalElicitation {
		opt, _, err := t.elicit(ctx, a, false)
		return opt, err
	}
	if !t.fresh(a) {
		return string(wire.OptionRejectOnce), nil
	}
	fmt.Fprintln(t.out)
	printCard(t.out, a)
	for {
		fmt.Fprint(t.out, cardKeys(a))
		select {
		case line, ok := <-t.lines:
			if !ok {
				fmt.Fprintln(t.out, "(end of input: denied)")
				return string(wire.OptionRejectOnce), nil
			}
			if opt, ok := cardAnswer(a, line); ok {
				return opt, nil
			}
			// A key the card does not list is not a no said without a word.
			fmt.Fprintf(t.out, "%q is not one of the answers: type one of the keys in brackets (Enter alone denies)\n", oneLine(strings.TrimSpace(line)))
		case <-ctx.Done():
			fmt.Fprintln(t.out, "(no answer: denied)")
			return "", ctx.Err()
		}
	}
}

// cardKeys is the prompt under a card: its keys, the default (deny) in
// capitals.
func cardKeys(a wire.Approval) string {
	always, never := "", ""
	for _, o := range a.Options {
		switch o.Kind {
		case wire.OptionAllowAlways:
			always = "  [a] " + oneLine(o.Name)
		case wire.OptionRejectAlways:
			never = "  [d] " + oneLine(o.Name)
		}
	}
	if extra := launchKeys(a); extra != "" {
		return fmt.Sprintf("[y] allow, confined  %s  [N] deny: ", oneLine(extra))
	}
	return "[y] allow once" + always + never + "  [N] deny: "
}

// cardAnswer is the option a typed answer picks on card a: y allows once,
// a allows always and d denies always (where offered), w and u a launch
// card's other choices, n or Enter alone denies. ok is false for anything else: the card is
// asked again, never read as a no.
func cardAnswer(a wire.Approval, line string) (optionID string, ok bool) {
	answer := strings.ToLower(strings.TrimSpace(line))
	switch answer {
	case "y", "yes":
		return string(wire.OptionAllowOnce), true
	case "", "n", "no":
		return string(wire.OptionRejectOnce), true
	case "a", "always", "d", "never":
		kind := wire.OptionAllowAlways
		if answer == "d" || answer == "never" {
			kind = wire.OptionRejectAlways
		}
		for _, o := range a.Options {
			if o.Kind == kind {
				return o.OptionID, true
			}
		}
	}
	if opt := launchAnswer(a, answer); opt != "" {
		return opt, true
	}
	return "", false
}

// launchKeys are the prompt's keys for a launch card's other choices
// (allow with network, allow unconfined), "" when it offers none. Never
// n: on a y/N prompt it means no.
func launchKeys(a wire.Approval) string {
	var keys []string
	for _, o := range a.Options {
		switch o.OptionID {
		case wire.OptionLaunchNetwork:
			keys = append(keys, "[w] "+o.Name)
		case wire.OptionLaunchUnconfined:
			keys = append(keys, "[u] "+o.Name)
		}
	}
	return strings.Join(keys, "  ")
}

// launchAnswer is the option a key of launchKeys picks, "" for none.
func launchAnswer(a wire.Approval, answer string) string {
	want := map[string]string{"w": wire.OptionLaunchNetwork, "network": wire.OptionLaunchNetwork,
		"u": wire.OptionLaunchUnconfined, "unconfined": wire.OptionLaunchUnconfined}[answer]
	for _, o := range a.Options {
		if want != "" && o.OptionID == want {
			return want
		}
	}
	return ""
}

// fresh starts the one reader of the terminal (once) and drops anything
// typed before this card was shown: a stray "y" must never answer a
// question the user has not seen. False at the end of input (denied).
func (t *terminalApprover) fresh(a wire.Approval) bool {
	t.once.Do(func() {
		// One reader for the life of the process: a read of a terminal
		// cannot be interrupted, so it is never abandoned mid-answer.
		t.lines = make(chan string)
		go func() {
			sc := bufio.NewScanner(t.in)
			for sc.Scan() {
				t.lines <- sc.Text()
			}
			close(t.lines)
		}()
	})
	for {
		select {
		case _, ok := <-t.lines:
			if !ok {
				fmt.Fprintf(t.out, "\n%s\n(end of input: denied)\n", oneLine(a.Title))
				return false
			}
		default:
			return true
		}
	}
}

// modelUsable fails fast, before any MCP server is spawned or waited for,
// when no model can be had: a [model] that does not resolve, or nothing
// configured and no Ollama answering where agentls guessed it.
func modelUsable(m config.Model) error {
	r, err := model.Resolve(m, os.Getenv)
	if err != nil {
		return err
	}
	if r.Fallback {
		if _, err := probe(r.BaseURL); err != nil {
			return &model.NoModelError{URL: r.BaseURL, Err: &model.ConnectError{Provider: r.Provider, URL: r.BaseURL, Err: err}}
		}
	}
	return nil
}

// openTaskCore opens the agent core of a terminal command (run, chat) on
// the current directory: the config loaded and checked, the model usable,
// the MCP servers starting (a workspace's unapproved ones named). code is
// -1 to go on (the caller closes core), else the exit code, said on stderr.
func openTaskCore(ctx context.Context, cmd, configPath string) (core *agent.Core, root string, code int) {
	root, err := workspaceRoot("")
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls %s: %v\n", cmd, err)
		return nil, "", 2
	}
	if r := tools.RefusedRoot(root); r != "" {
		fmt.Fprintf(os.Stderr, "agentls: %s.\n", tools.RefusedRootMessage(r))
	}
	if configPath == "" {
		configPath = config.UserPath()
	}
	cfg := config.Load(configPath, []string{root})
	if configUnusable(cmd, cfg) {
		return nil, "", 1
	}
	for _, d := range cfg.Diagnostics {
		fmt.Fprintf(os.Stderr, "agentls: config: %s\n", oneLine(d.String()))
	}
	if err := modelUsable(cfg.Model); err != nil {
		fmt.Fprintf(os.Stderr, "agentls %s: %v\n", cmd, err)
		return nil, "", 1
	}
	core, err = agent.Open(agent.Setup{Config: cfg, Roots: []string{root}, Logf: logf})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls %s: %v\n", cmd, err)
		return nil, "", 1
	}
	core.StartServers(context.WithoutCancel(ctx))
	for _, s := range core.Servers() {
		if s.State == wire.ServerNeedsApproval || s.State == wire.ServerApprovalStale {
			fmt.Fprintf(os.Stderr, "agentls: MCP server %q from the workspace config is not started (%s): review it with `agentls mcp trust %s`\n", s.Name, s.State, s.Name)
		}
	}
	return core, root, -1
}
