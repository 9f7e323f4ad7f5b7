package agent

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/trust"
)

// An MCP prompt as a slash command, the same in every front that reads
// typed text (ACP's session/prompt, `agentls chat`): "/server.prompt
// city=Lyon" runs the prompt prompt of server server with those arguments.

// CommandName is the prompt's slash command without the slash,
// "server.prompt", or "" when the prompt's name is not one an editor can
// offer and a user can type (a server chooses it: letters, digits, '-',
// '_' and '.', at most 64 characters).
func (p ServerPrompt) CommandName() string {
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

// CommandDescription is what a list of commands says of the prompt: the
// server's title and description, escaped.
func (p ServerPrompt) CommandDescription() string {
	desc := p.Description
	if p.Title != "" {
		desc = p.Title + ": " + desc
	}
	if desc == "" {
		desc = "the prompt " + p.Name
	}
	return trust.Visible("MCP prompt of " + p.Server + ": " + desc)
}

// PromptCommand recognizes text that runs an MCP prompt of a connected
// server ("/server.prompt city=Lyon") and reads its arguments. ok is false
// when text is not such a command; problem, when not "", says what is
// wrong with the arguments (the prompt is not run then).
func (c *Core) PromptCommand(text string) (ref *PromptRef, problem string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "/")
	if !ok {
		return nil, "", false
	}
	name, args, _ := strings.Cut(rest, " ")
	for _, p := range c.Prompts() {
		if p.CommandName() != name {
			continue
		}
		ref := &PromptRef{Server: p.Server, Name: p.Name}
		parsed, err := promptArguments(p, strings.TrimSpace(args))
		if err != nil {
			return ref, err.Error(), true
		}
		ref.Arguments = parsed
		if err := c.CheckPrompt(*ref); err != nil {
			return ref, err.Error(), true
		}
		return ref, "", true
	}
	return nil, "", false
}

// promptArguments reads the text after a prompt's command: name=value
// pairs (a value with spaces in double quotes); text without '=' is the
// value of the prompt's first required argument (or its only one).
func promptArguments(p ServerPrompt, text string) (map[string]string, error) {
	if text == "" {
		return nil, nil
	}
	words, err := splitQuoted(text)
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

// splitQuoted splits on spaces, keeping "double quoted" runs whole.
func splitQuoted(s string) ([]string, error) {
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
