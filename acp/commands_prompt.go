package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
)

// promptCommandName is the slash command of an MCP prompt, "server.prompt",
// or "" when the prompt's name is not one an editor can offer and a user
// can type (a server chooses it: letters, digits, '-', '_' and '.', at most
// 64 characters).
func promptCommandName(p agent.ServerPrompt) string {
	if p.Name == "" || len(p.Name) > 64 {
		return ""
	}
	for _, r := range p.Name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return ""
		}
	}
	return p.Server + "." + p.Name
}

// promptCommands are the slash commands of the prompts connected servers
// list. Their descriptions are the servers' text, escaped.
func promptCommands(core *agent.Core) []availableCommand {
	var out []availableCommand
	for _, p := range core.Prompts() {
		name := promptCommandName(p)
		if name == "" {
			continue
		}
		desc := p.Description
		if p.Title != "" {
			desc = p.Title + ": " + desc
		}
		if desc == "" {
			desc = "the prompt " + p.Name
		}
		c := availableCommand{Name: name, Description: trust.Visible("MCP prompt of " + p.Server + ": " + desc)}
		if usage := p.ArgumentsUsage(); usage != "" {
			c.Input = &commandInput{Hint: usage}
		}
		out = append(out, c)
	}
	return out
}

// watchCommands announces the commands again whenever the servers' prompts
// change (a server connected, or relisted), until the connection ends.
func (s *session) watchCommands(last string) {
	defer s.a.wg.Done()
	for {
		ch := s.core.ServersChanged()
		if commandsKey(promptCommands(s.core)) != last {
			last = s.announceCommands()
		}
		select {
		case <-ch:
		case <-s.a.ctx.Done():
			return
		}
	}
}

// commandsKey identifies a list of prompt commands.
func commandsKey(cmds []availableCommand) string {
	b, _ := json.Marshal(cmds)
	return string(b)
}

// promptCommand recognizes a prompt that runs an MCP prompt
// ("/server.prompt city=Lyon") and reads its arguments.
func (s *session) promptCommand(text string) (*agent.PromptRef, string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "/")
	if !ok {
		return nil, "", false
	}
	name, args, _ := strings.Cut(rest, " ")
	for _, p := range s.core.Prompts() {
		if promptCommandName(p) != name {
			continue
		}
		ref := &agent.PromptRef{Server: p.Server, Name: p.Name}
		parsed, err := promptArguments(p, strings.TrimSpace(args))
		if err != nil {
			return ref, err.Error(), true
		}
		ref.Arguments = parsed
		if err := s.core.CheckPrompt(*ref); err != nil {
			return ref, err.Error(), true
		}
		return ref, "", true
	}
	return nil, "", false
}

// promptArguments reads the text after a prompt's command: name=value
// pairs (a value with spaces in double quotes); text without '=' is the
// value of the prompt's first required argument (or its only one).
func promptArguments(p agent.ServerPrompt, text string) (map[string]string, error) {
	if text == "" {
		return nil, nil
	}
	words, err := splitWords(text)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(words[0], "=") {
		target := ""
		if req := p.Required(); len(req) > 0 {
			target = req[0]
		} else if len(p.Arguments) == 1 {
			target = p.Arguments[0].Name
		}
		if target == "" {
			return nil, fmt.Errorf("write the arguments of %s as name=value: %s", trust.Visible(p.Name), orText(p.ArgumentsUsage(), "it takes none"))
		}
		return map[string]string{target: text}, nil
	}
	out := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not name=value: write the arguments of %s as %s", w, trust.Visible(p.Name), orText(p.ArgumentsUsage(), "(it takes none)"))
		}
		out[k] = v
	}
	return out, nil
}

// splitWords splits on spaces, keeping "double quoted" runs whole.
func splitWords(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	quoted, started := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, started = !quoted, true
		case r == ' ' && !quoted:
			if started {
				out = append(out, b.String())
				b.Reset()
				started = false
			}
		default:
			b.WriteRune(r)
			started = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("a quote is not closed in %q", s)
	}
	if started {
		out = append(out, b.String())
	}
	return out, nil
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// runPrompt runs an MCP prompt as this session's turn, or says why not.
func (s *session) runPrompt(ctx context.Context, ref *agent.PromptRef, problem string) (promptResponse, error) {
	if problem != "" {
		s.send(sessionUpdate{SessionUpdate: updateAgentMessage, Content: ptr(textBlock("agentls: " + problem))})
		return promptResponse{StopReason: StopEndTurn}, nil
	}
	return s.runTurn(ctx, agent.RunRequest{MCPPrompt: ref})
}
