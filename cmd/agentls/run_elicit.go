package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// ShowsForms: the terminal asks each field of an MCP server's form.
func (t *terminalApprover) ShowsForms() bool { return true }

// RequestForm shows an elicitation card and asks its fields one line each.
func (t *terminalApprover) RequestForm(ctx context.Context, a wire.Approval) (string, map[string]any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.elicit(ctx, a, true)
}

// OpenURL prints the URL to open: a terminal has no browser to drive.
func (t *terminalApprover) OpenURL(_ context.Context, u string) error {
	fmt.Fprintf(t.out, "Open this URL in your browser:\n  %s\n", trust.Visible(u))
	return nil
}

// elicit asks an elicitation card on the terminal. With form, each field
// in turn (Enter keeps the default or leaves an optional field out, "-"
// declines), then whether to send; else one of the card's options by
// number. Anything else, and the end of input, declines.
func (t *terminalApprover) elicit(ctx context.Context, a wire.Approval, form bool) (string, map[string]any, error) {
	if !t.fresh(a) {
		return wire.OptionDecline, nil, nil
	}
	fmt.Fprintln(t.out)
	printCard(t.out, a)
	if !form || a.Elicitation == nil {
		var opts []string
		for i, o := range a.Options {
			opts = append(opts, fmt.Sprintf("[%d] %s", i+1, o.Name))
		}
		fmt.Fprintf(t.out, "%s: ", strings.Join(opts, "  "))
		line, err := t.read(ctx)
		if err != nil || line == nil {
			return wire.OptionDecline, nil, err
		}
		n, convErr := strconv.Atoi(strings.TrimSpace(*line))
		if convErr != nil || n < 1 || n > len(a.Options) {
			return wire.OptionDecline, nil, nil
		}
		return a.Options[n-1].OptionID, nil, nil
	}
	fmt.Fprintln(t.out, `Answer each field (Enter: the default, or leave it out; "-": decline).`)
	content := map[string]any{}
	for _, f := range a.Elicitation.Fields {
		for {
			fmt.Fprintf(t.out, "  %s: ", fieldPrompt(f))
			line, err := t.read(ctx)
			if err != nil || line == nil {
				return wire.OptionDecline, nil, err
			}
			in := strings.TrimSpace(*line)
			if in == "-" {
				return wire.OptionDecline, nil, nil
			}
			if in == "" {
				if f.Required && len(f.Default) == 0 {
					fmt.Fprintln(t.out, "    required")
					continue
				}
				break
			}
			v, err := parseField(f, in)
			if err == nil {
				_, err = agent.FormContent([]wire.ElicitField{f}, map[string]any{f.Name: v})
			}
			if err != nil {
				fmt.Fprintf(t.out, "    %v\n", err)
				continue
			}
			content[f.Name] = v
			break
		}
	}
	fmt.Fprintf(t.out, "[y] send to %s  [N] decline: ", trust.Visible(a.Server))
	line, err := t.read(ctx)
	if err != nil || line == nil {
		return wire.OptionDecline, nil, err
	}
	if s := strings.ToLower(strings.TrimSpace(*line)); s != "y" && s != "yes" {
		return wire.OptionDecline, nil, nil
	}
	return wire.OptionAccept, content, nil
}

// read is the next line typed; nil at the end of input.
func (t *terminalApprover) read(ctx context.Context) (*string, error) {
	select {
	case line, ok := <-t.lines:
		if !ok {
			fmt.Fprintln(t.out, "(end of input: declined)")
			return nil, nil
		}
		return &line, nil
	case <-ctx.Done():
		fmt.Fprintln(t.out, "(no answer: declined)")
		return nil, ctx.Err()
	}
}

// fieldPrompt names a field and what it takes.
func fieldPrompt(f wire.ElicitField) string {
	label := trust.Visible(f.Name)
	if f.Title != "" {
		label += " (" + trust.Visible(f.Title) + ")"
	}
	var hint []string
	switch {
	case len(f.Choices) > 0:
		var vals []string
		for i, c := range f.Choices {
			name := trust.Visible(c.Value)
			if c.Title != "" {
				name = trust.Visible(c.Title)
			}
			vals = append(vals, fmt.Sprintf("%d=%s", i+1, name))
		}
		h := strings.Join(vals, " ")
		if f.Type == "array" {
			h += ", several with commas"
		}
		hint = append(hint, h)
	case f.Type == "boolean":
		hint = append(hint, "y/n")
	default:
		hint = append(hint, f.Type)
	}
	if f.Required {
		hint = append(hint, "required")
	}
	if len(f.Default) > 0 {
		hint = append(hint, "default "+trust.Visible(string(f.Default)))
	}
	return label + " [" + strings.Join(hint, ", ") + "]"
}

// parseField reads what was typed for f: a choice by number or value, y/n
// for a boolean, a number for a number.
func parseField(f wire.ElicitField, in string) (any, error) {
	choice := func(s string) string {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.Choices) {
			return f.Choices[n-1].Value
		}
		return s
	}
	switch {
	case f.Type == "array":
		var out []any
		for _, part := range strings.Split(in, ",") {
			if p := strings.TrimSpace(part); p != "" {
				out = append(out, choice(p))
			}
		}
		return out, nil
	case len(f.Choices) > 0:
		return choice(in), nil
	case f.Type == "boolean":
		switch strings.ToLower(in) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("answer y or n")
	case f.Type == "number" || f.Type == "integer":
		var n json.Number = json.Number(in)
		if _, err := n.Float64(); err != nil {
			return nil, fmt.Errorf("expected a number")
		}
		return n, nil
	}
	return in, nil
}
