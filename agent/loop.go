package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/prompt"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
)

// runTask runs one task to its end and emits its done event.
func (c *Core) runTask(ctx context.Context, t *Task, req RunRequest, io TaskIO) wire.RunResult {
	r := &run{core: c, task: t, io: io, ws: io.Workspace, tr: session.OpenTranscript(c.stateDir, t.SessionID)}
	r.tr.OnFail = func(err error) {
		c.markTorn(t.SessionID, true)
		msg := transcriptFailed(r.tr.Path, err)
		c.logf("%s", msg)
		r.emitStatus(msg)
	}
	if r.ws == nil {
		r.ws = DiskWorkspace(c.root)
	}
	res := r.execute(ctx, req)
	r.turnEnd(c.ctx, res) // a cancelled turn ends too: the hook is bounded by its timeout and agentls's end
	r.settle(res)
	res.TaskID, res.SessionID, res.Usage = t.ID, t.SessionID, r.usage
	// The result goes to fronts (agent/run, ACP, the CLI) as events do.
	res.Text = trust.Redact(res.Text)
	r.tr.End(res.StopReason, res.Error, r.usage)
	if r.unlock != nil && r.tr.Failed() {
		// The session file holds the whole turn now: if there is room
		// again, the transcript is whole again.
		r.repairTranscript()
	}
	// The turn's files go before its lock does.
	r.tr.Close()
	if r.file != nil {
		r.file.Close()
	}
	if r.unlock != nil {
		r.unlock()
	}
	usage := r.usage
	// Once a client sees done, agent/tasks no longer lists the task.
	c.mu.Lock()
	delete(c.tasks, t.ID)
	c.idle()
	c.mu.Unlock()
	r.emit(wire.Event{Type: wire.EventDone, StopReason: res.StopReason, Text: res.Text, Message: res.Error, Usage: &usage})
	return res
}

func (r *run) execute(ctx context.Context, req RunRequest) wire.RunResult {
	c := r.core
	fail := func(format string, args ...any) wire.RunResult {
		return wire.RunResult{StopReason: "error", Error: fmt.Sprintf(format, args...)}
	}
	if req.MCPPrompt != nil {
		text, res := r.mcpPrompt(ctx, *req.MCPPrompt)
		if res != nil {
			return *res
		}
		req.Prompt = text
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return fail("the prompt is empty: say what the agent should do")
	}
	// A prompt bigger than the whole context window can never be sent:
	// refuse it before storing, redacting or echoing any of it.
	// The session's model for this whole turn: a switch (SetModel)
	// takes effect at the next.
	pm := c.sessionModel(r.task.SessionID)
	if window := c.window(pm).Tokens; len(req.Prompt)/4 > window {
		return fail("%s", promptTooBig(len(req.Prompt), window, pm.cfg.Name))
	}
	unlock, err := c.sessionLock(ctx, r.task.SessionID)
	if err != nil {
		return wire.RunResult{StopReason: wire.StopCancelled}
	}
	r.unlock = unlock // runTask releases it once the turn is settled
	provider, err := pm.Provider(c.stateDir)
	if err != nil {
		return fail("%v", err)
	}
	recovered := c.sessions.RecoverTurn(r.task.SessionID)
	history, note, err := c.sessions.Load(r.task.SessionID)
	if err != nil {
		return fail("%v", err)
	}
	r.history = &history
	r.repairTranscript()
	for _, n := range []string{recovered, note} {
		if n != "" {
			c.logf("%s", n)
			r.tr.Note(n)
			r.emitStatus(n)
		}
	}
	system := prompt.System(ctx, r.ws, prompt.Context{Folders: r.ws.Folders(), Document: req.Document, Range: req.Range, Diagnostics: req.Diagnostics})

	turn := session.CountPrompts(history) + 1
	// What MCP tasks that outlived their turn returned comes first.
	if err := r.store(&history, model.Message{Role: "user", Content: append(c.taskResults(r.task.SessionID), model.Block{Type: "text", Text: req.Prompt})}); err != nil {
		return fail("%v", err)
	}
	r.prompted = true
	if r.journal, err = c.sessions.OpenJournal(r.task.SessionID); err != nil {
		c.logf("%v (an answer cut off by a crash would not be kept)", err)
	}
	r.tr.Prompt(ctx, r.task.ID, req.Prompt)
	if ctx.Err() != nil {
		// Cancelled while a big prompt was stored or redacted: end now,
		// not after encoding it into a request. The prompt stays in the
		// session, as any turn's prompt does.
		return wire.RunResult{StopReason: wire.StopCancelled}
	}
	ck := newTurnCheckpoint(c.sessions, r.task.SessionID, turn, c.logf)
	ck.landed = r.task.landed
	env := &tools.Env{Workspace: r.ws, Registry: c.reg, MaxBytes: c.cfg.MCP.ResultMaxBytes, Mode: r.mode, SandboxRead: c.cfg.Sandbox.Read,
		Secrets: c.secrets, Policy: c.policy, Store: c.store, Search: r,
		Checkpoint: ck}
	env.HideEnv = c.keyEnvs()

	lastText := ""
	win := c.window(pm)
	r.window = win.Tokens
	if note := c.firstWindowNote(pm, win); note != "" {
		r.emitStatus(note)
		r.tr.Note(note)
	}
	r.view = c.sessions.LoadView(r.task.SessionID, history)
	cmp := compactor{provider: provider, modelName: pm.cfg.Name, maxTokens: pm.cfg.MaxTokens, window: r.window, onUsage: r.billUsage}
	var m meter
	offer := c.toolOfferFor(provider, pm.cfg.MaxTools, r.window)
	r.loaded = loadedFromHistory(history)
	for iter := 0; iter < c.cfg.Agent.MaxIterations; iter++ {
		// Re-read every turn: a server that connected (or re-listed)
		// since the last request hot-plugs its tools into this one.
		all := r.toolSet(ctx, iter == 0)
		defs, searching := offer.offer(all, r.loaded)
		mode := r.mode()
		if mode == wire.ModePlan {
			defs = append(slices.Clip(defs), tools.PlanDef())
		}
		r.offered = nil
		if searching {
			if note := c.hiddenToolsNote(pm, mcpCount(all), mcpCount(defs), mcpTokens(all), offer, win); note != "" {
				r.emitStatus(note)
				r.tr.Note(note)
			}
			r.offered = make(map[string]bool, len(defs)+1)
			for _, t := range defs {
				r.offered[t.Name] = true
			}
		}
		msgs := session.Sendable(applyView(history, r.view))
		system := system + prompt.ModePrompt(mode)
		fixed := len(system)/4 + toolsTokens(defs)
		if m.next(system, defs, msgs) > int(compactAt*float64(r.window)) {
			r.compact(ctx, cmp, history, fixed, false)
			msgs = session.Sendable(applyView(history, r.view))
		}
		if err := session.ValidHistory(msgs); err != nil {
			return fail("agentls refused to send a broken history (a bug): %v", err)
		}
		var streamed, reasoned strings.Builder
		budget := pm.cfg.MaxTokens
		send := func() (*model.Response, error) {
			// The model may echo a secret a tool returned: its text and its
			// reasoning are redacted like every event, a secret cut across
			// two deltas included (the redactor holds back what could still
			// be one).
			var redact, redactReasoning trust.StreamRedactor
			flushReasoning := func() {
				if out := redactReasoning.Flush(); out != "" {
					r.emit(wire.Event{Type: wire.EventReasoning, Delta: out})
				}
			}
			resp, err := provider.Stream(ctx, model.Request{
				Model: pm.cfg.Name, System: system, Messages: msgs, Tools: defs,
				// Extended thinking's budget is added to max_tokens on the
				// wire, and Anthropic refuses input plus max_tokens over the
				// window: the answer's budget fits what the thinking leaves.
				MaxTokens: fitBudget(budget, r.window, m.next(system, defs, msgs)+pm.cfg.Thinking),
				OnReasoning: func(delta string) {
					reasoned.WriteString(delta)
					if out := redactReasoning.Write(delta); out != "" {
						r.emit(wire.Event{Type: wire.EventReasoning, Delta: out})
					}
				},
			}, func(delta string) {
				flushReasoning() // the answer has begun: what was held back of the reasoning goes first
				streamed.WriteString(delta)
				r.journal.Text(delta)
				if out := redact.Write(delta); out != "" {
					r.emit(wire.Event{Type: wire.EventText, Delta: out})
				}
			})
			flushReasoning()
			if out := redact.Flush(); out != "" {
				r.emit(wire.Event{Type: wire.EventText, Delta: out})
			}
			return resp, err
		}
		resp, err := send()
		if n, tooLong := model.ContextExceeded(err); tooLong && streamed.Len() == 0 && ctx.Err() == nil {
			// The model's window is smaller than agentls thought (or its
			// tokenizer counts more): learn the window the server named,
			// compact harder and try once more.
			msg := "the model refused the request as too long for its context window: compacting and retrying once"
			if w, lower := c.learnWindow(pm, n); lower {
				win, r.window, cmp.window = w, w.Tokens, w.Tokens
				offer = c.toolOfferFor(provider, pm.cfg.MaxTools, r.window)
				msg = fmt.Sprintf("the model refused the request as too long: its window is %d tokens (%s), which agentls now uses: compacting and retrying once", w.Tokens, w.From)
			}
			r.emitStatus(msg)
			r.tr.Note(msg)
			if r.compact(ctx, cmp, history, fixed, true) {
				msgs = session.Sendable(applyView(history, r.view))
				resp, err = send()
			} else {
				err = fmt.Errorf("%w; compaction cannot make it shorter, so it was not sent again: put long text in a file of the workspace and ask the agent to read or search it, or start a new session", err)
			}
			if _, still := model.ContextExceeded(err); still {
				r.tooLong = true
			}
		}
		if err == nil && cutCall(resp) != "" {
			// The budget ran out inside a tool call's arguments: they are not
			// the model's mistake, and not worth a turn telling it so. Ask
			// again once with twice the budget.
			r.addUsage(resp.Usage)
			r.emitStatus(fmt.Sprintf("the answer reached max_tokens (%d tokens) inside the arguments of %s: asking again with %d", budget, cutCall(resp), 2*budget))
			r.tr.Reasoning(reasoned.String())
			r.tr.Assistant(streamed.String())
			reasoned.Reset()
			streamed.Reset()
			budget *= 2
			resp, err = send()
			if err == nil && cutCall(resp) != "" {
				r.addUsage(resp.Usage)
				r.tr.Reasoning(reasoned.String())
				r.partial = streamed.String()
				r.tr.Assistant(r.partial)
				return wire.RunResult{StopReason: wire.StopMaxTokens, Text: r.partial,
					Error: fmt.Sprintf("the answer reached max_tokens inside the arguments of %s twice (at %d and %d tokens), so nothing was run: raise [model] max_tokens", cutCall(resp), budget/2, budget)}
			}
		}
		r.tr.Reasoning(reasoned.String())
		reasoned.Reset()
		if err != nil {
			// What streamed is stored by settle as an interrupted answer.
			r.partial = streamed.String()
			r.tr.Assistant(streamed.String())
			if ctx.Err() != nil {
				return wire.RunResult{StopReason: wire.StopCancelled, Text: streamed.String()}
			}
			return wire.RunResult{StopReason: "error", Error: err.Error(), Text: streamed.String()}
		}
		m.reported(defs, msgs, resp.Usage.InputTokens)
		r.addUsage(resp.Usage)
		content, uses := normalizeAssistant(resp.Content, iter)
		lastText = model.TextOf(content)
		r.tr.Assistant(lastText)
		if why := refusalReason(resp.StopReason); why != "" {
			// A refused answer is not kept (Anthropic asks that it not be sent
			// back); the session says the model declined (settle).
			return wire.RunResult{StopReason: wire.StopRefusal, Text: lastText, Error: why}
		}
		if resp.StopReason == "max_tokens" && len(uses) == 0 {
			if strings.TrimSpace(lastText) == "" {
				return wire.RunResult{StopReason: wire.StopMaxTokens,
					Error: fmt.Sprintf("the model spent all of max_tokens (%d tokens) before it answered (a reasoning model may spend it all thinking): raise [model] max_tokens", budget)}
			}
			if err := r.store(&history, model.Message{Role: "assistant", Content: content}); err != nil {
				return fail("%v", err)
			}
			return wire.RunResult{StopReason: wire.StopMaxTokens, Text: lastText,
				Error: fmt.Sprintf("the answer was cut at max_tokens (%d tokens): raise [model] max_tokens, or ask the model to go on", budget)}
		}
		if len(content) == 0 {
			return wire.RunResult{StopReason: wire.StopEndTurn}
		}
		if err := r.store(&history, model.Message{Role: "assistant", Content: content}); err != nil {
			return fail("%v", err)
		}
		if len(uses) == 0 {
			return wire.RunResult{StopReason: wire.StopEndTurn, Text: lastText}
		}
		results := r.callTools(ctx, env, uses)
		if err := r.store(&history, model.Message{Role: "user", Content: results}); err != nil {
			return fail("%v", err)
		}
		if ctx.Err() != nil {
			return wire.RunResult{StopReason: wire.StopCancelled, Text: lastText}
		}
	}
	return wire.RunResult{StopReason: wire.StopMaxIterations, Text: lastText,
		Error: fmt.Sprintf("stopped after %d model calls ([agent] max_iterations)", c.cfg.Agent.MaxIterations)}
}

// store appends a message to the history and the session file.
func (r *run) store(history *[]model.Message, m model.Message) error {
	*history = append(*history, m)
	if r.file == nil {
		r.file = r.core.sessions.Appender(r.task.SessionID)
	}
	if err := r.file.Append(m); err != nil {
		return err
	}
	r.journal.Stored(r.core.sessions.Size(r.task.SessionID))
	return nil
}

// settle ends the turn in the session: a turn that was cancelled or failed
// after its prompt was stored ends with an interrupted answer (what had
// streamed, possibly nothing), so the history says so and the next prompt
// does not merge into this one (session/interrupted.go). Then the journal goes;
// it stays when the answer could not be stored, for the next load.
func (r *run) settle(res wire.RunResult) {
	if !r.prompted {
		r.journal.Remove()
		return
	}
	reason := ""
	switch res.StopReason {
	case wire.StopCancelled:
		reason = session.InterruptedCancelled
	case wire.StopError:
		reason = session.InterruptedError
		if r.tooLong {
			reason = session.InterruptedTooLong
		}
	case wire.StopMaxTokens:
		reason = session.InterruptedMaxTokens
	case wire.StopRefusal:
		reason = session.InterruptedRefused
	}
	h := *r.history
	if reason == "" || len(h) == 0 || h[len(h)-1].Role != "user" {
		r.journal.Remove()
		return
	}
	m := model.Message{Role: "assistant", Content: []model.Block{}, Interrupted: reason}
	if r.partial != "" {
		m.Content = []model.Block{{Type: "text", Text: r.partial}}
	}
	if err := r.store(r.history, m); err != nil {
		r.core.logf("session %s: the end of this %s turn was not saved: %v", r.task.SessionID, reason, err)
		r.journal.Close()
		return
	}
	r.journal.Remove()
}

// fitBudget is the output budget a request of about input tokens asks
// for in a window of window tokens: budget, or less when input and budget
// together would pass the window (vLLM refuses such a request: "'max_tokens'
// ... is too large: 8192. This model's maximum context length is 4096
// tokens"), keeping a tenth of the window for the estimate's error, and
// never under 256 tokens.
func fitBudget(budget, window, input int) int {
	room := window - input - window/10
	return max(min(budget, room), min(budget, 256))
}

// cutCall names the tool whose arguments the answer's token budget cut
// (the stream stopped at max_tokens inside them: not a JSON object), or "".
func cutCall(resp *model.Response) string {
	if resp.StopReason != "max_tokens" {
		return ""
	}
	for _, b := range resp.Content {
		if b.Type == "tool_use" && b.InvalidInput != "" {
			return b.Name
		}
	}
	return ""
}

// refusalReason says why an answer with this stop reason was declined, or "".
func refusalReason(stop string) string {
	switch stop {
	case "refusal":
		return "the model declined to answer (stop reason refusal)"
	case "content_filter":
		return "the provider's content filter stopped the answer (finish_reason content_filter)"
	}
	return ""
}

// normalizeAssistant drops empty text blocks and gives every tool_use a
// unique id and an object input, so the stored message is always valid.
func normalizeAssistant(blocks []model.Block, iter int) (content, uses []model.Block) {
	seen := map[string]bool{}
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text == "" {
				continue
			}
		case "tool_use":
			if b.ID == "" || seen[b.ID] {
				b.ID = fmt.Sprintf("toolu_agentls_%d_%d", iter, i)
			}
			seen[b.ID] = true
			var obj map[string]json.RawMessage
			if json.Unmarshal(b.Input, &obj) != nil || obj == nil {
				b.Input = json.RawMessage(`{}`)
			}
			uses = append(uses, b)
		}
		content = append(content, b)
	}
	return content, uses
}

// promptTooBig says why a prompt of n bytes cannot go to a model whose
// window is window tokens, and what to do instead.
func promptTooBig(n, window int, modelName string) string {
	name := "the model"
	if modelName != "" {
		name = modelName
	}
	return fmt.Sprintf("the prompt is about %d tokens (%s), more than %s's whole context window (%d tokens): the model could never accept it, so it was not sent or saved. "+
		"Put the text in a file of the workspace and ask the agent to read or search it, or, if the model takes more, set [model] context_window",
		n/4, trust.ByteSize(n), name, window)
}
