package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// An MCP server's question to the user (elicitation/create) while one of
// its tools runs becomes an elicitation approval: the same card paths as
// every other approval, with the server named on it, its text escaped and
// quoted so it cannot pass for a line of the card, and Decline always
// offered. Whatever ends the card without a choice declines.

// elicitChoicesMax bounds the one-option-per-value card of a choice field.
const elicitChoicesMax = 12

// elicitPerCall bounds the questions one tool call may put to the user.
const elicitPerCall = 10

// elicitCard is the approval card of e. forms: the approver can show the
// form itself (option accept carries its content); opens: it can open a
// URL for the user. Decline is always the last option.
func elicitCard(e mcp.Elicitation, forms, opens bool) wire.Approval {
	server := trust.Visible(e.Server)
	a := wire.Approval{Kind: wire.ApprovalElicitation, Server: e.Server, Elicitation: &e.Elicitation}
	var b strings.Builder
	if e.Mode == wire.ElicitURL {
		host := "?"
		u, err := url.Parse(e.URL)
		if err == nil && u.Host != "" {
			host = u.Host
		}
		// Only a web page: a command:, file: or vscode: URI opened by the
		// editor would run or open something there.
		opens = opens && IsWebPage(e.URL)
		a.Title = fmt.Sprintf("%s asks you to open %s", server, trust.Visible(host))
		fmt.Fprintf(&b, "MCP server %s asks you to open this page in your browser:\n  %s\n", server, trust.Visible(e.URL))
		quote(&b, e.Message)
		b.WriteString("Open it only if you trust " + server + " with what the page asks.")
		if opens {
			a.Options = append(a.Options, wire.ApprovalOption{OptionID: wire.OptionAccept, Name: "Open " + capName(trust.Visible(host)), Kind: wire.OptionAllowOnce})
		}
	} else {
		first, _, _ := strings.Cut(strings.TrimSpace(e.Message), "\n")
		a.Title = fmt.Sprintf("%s asks: %s", server, capName(trust.Visible(first)))
		fmt.Fprintf(&b, "MCP server %s asks (its own words):\n", server)
		quote(&b, e.Message)
		if len(e.Fields) > 0 {
			b.WriteString("Fields:\n")
			for i, f := range e.Fields {
				if i == elicitFieldsMax {
					fmt.Fprintf(&b, "  (%d more fields not shown)\n", len(e.Fields)-i)
					break
				}
				line := describeField(f)
				if n := utf8.RuneCountInString(line); n > elicitFieldMax {
					line = string([]rune(line)[:elicitFieldMax]) + fmt.Sprintf("… (%d more of this field not shown)", n-elicitFieldMax)
				}
				b.WriteString("  " + line + "\n")
			}
		}
		b.WriteString("What you answer goes to " + server + "; Decline sends nothing.")
		if forms {
			a.Options = append(a.Options, wire.ApprovalOption{OptionID: wire.OptionAccept, Name: "Submit", Kind: wire.OptionAllowOnce})
		}
		a.Options = append(a.Options, choiceOptions(e.Fields)...)
	}
	a.Detail = b.String()
	a.Options = append(a.Options, wire.ApprovalOption{OptionID: wire.OptionDecline, Name: "Decline", Kind: wire.OptionRejectOnce})
	return a
}

// The card quotes a bounded part of the server's text: a megabyte of
// message, or a field described at length, would push the lines that
// name who asks and where the answer goes out of view.
const (
	elicitQuoteMax   = 4000 // characters of the message
	elicitQuoteLines = 40
	elicitFieldMax   = 300 // characters of one field's line
	elicitFieldsMax  = 50  // fields listed
)

// quote writes a server's text one quoted line at a time: escaped, and
// marked so that no line of it reads as a line of the card; past
// elicitQuoteMax characters or elicitQuoteLines lines, an unquoted line of
// agentls's own says how much is not shown.
func quote(b *strings.Builder, s string) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	room := elicitQuoteMax
	for i, line := range lines {
		r := []rune(line)
		rest := func(shown int) {
			left := -shown
			for _, l := range lines[i:] {
				left += utf8.RuneCountInString(l) + 1
			}
			fmt.Fprintf(b, "  (%d more characters of the server's message not shown)\n", left)
		}
		if i == elicitQuoteLines || room <= 0 {
			rest(0)
			return
		}
		if len(r) > room {
			b.WriteString("  │ " + trust.Visible(string(r[:room])) + "\n")
			rest(room)
			return
		}
		room -= len(r) + 1
		b.WriteString("  │ " + trust.Visible(line) + "\n")
	}
}

// capName cuts a server-chosen label to one short line.
func capName(s string) string {
	r := []rune(s)
	if len(r) <= 60 {
		return s
	}
	return string(r[:59]) + "…"
}

// describeField is one line of a card's field list.
func describeField(f wire.ElicitField) string {
	var b strings.Builder
	b.WriteString(trust.Visible(f.Name) + " (" + f.Type)
	if f.Format != "" {
		b.WriteString(", " + trust.Visible(f.Format))
	}
	if f.Required {
		b.WriteString(", required")
	}
	if len(f.Default) > 0 {
		b.WriteString(", default " + trust.Visible(string(f.Default)))
	}
	b.WriteString(")")
	if len(f.Choices) > 0 {
		vals := make([]string, 0, len(f.Choices))
		for _, c := range f.Choices {
			vals = append(vals, choiceLabel(c))
		}
		b.WriteString(" one of " + strings.Join(vals, " | "))
		if f.Type == "array" {
			b.WriteString(" (several)")
		}
	}
	if t := f.Title; t != "" && t != f.Name {
		b.WriteString(" — " + trust.Visible(t))
	}
	if d := f.Description; d != "" {
		b.WriteString(": " + trust.Visible(d))
	}
	return b.String()
}

func choiceLabel(c wire.ElicitChoice) string {
	if c.Title != "" && c.Title != c.Value {
		return trust.Visible(c.Title) + " (" + trust.Visible(c.Value) + ")"
	}
	return trust.Visible(c.Value)
}

// choiceOptions are what an editor that can only pick among choices can
// answer: the defaults, when every field has one, and one option per value
// of the form's one choice field (the only field, or the only one without
// a default; a boolean is Yes and No).
func choiceOptions(fields []wire.ElicitField) []wire.ApprovalOption {
	var out []wire.ApprovalOption
	var undefaulted []wire.ElicitField
	for _, f := range fields {
		if len(f.Default) == 0 {
			undefaulted = append(undefaulted, f)
		}
	}
	if len(undefaulted) == 0 {
		name := "Accept"
		if len(fields) > 0 {
			parts := make([]string, 0, len(fields))
			for _, f := range fields {
				parts = append(parts, trust.Visible(f.Name)+"="+trust.Visible(string(f.Default)))
			}
			name = "Accept with defaults: " + capName(strings.Join(parts, ", "))
		}
		out = append(out, wire.ApprovalOption{OptionID: wire.OptionAcceptDefaults, Name: name, Kind: wire.OptionAllowOnce})
	}
	f, ok := choiceField(fields, undefaulted)
	if !ok {
		return out
	}
	label := trust.Visible(f.Name)
	if f.Title != "" {
		label = trust.Visible(f.Title)
	}
	for i, v := range choiceValues(f) {
		out = append(out, wire.ApprovalOption{OptionID: fmt.Sprintf("%s%d", wire.OptionChoicePrefix, i),
			Name: capName(label + ": " + v.label), Kind: wire.OptionAllowOnce})
	}
	return out
}

// choiceField is the field per-value options answer, if any.
func choiceField(fields, undefaulted []wire.ElicitField) (wire.ElicitField, bool) {
	var f wire.ElicitField
	switch {
	case len(fields) == 1:
		f = fields[0]
	case len(undefaulted) == 1:
		f = undefaulted[0]
	default:
		return f, false
	}
	n := len(choiceValues(f))
	return f, n > 0 && n <= elicitChoicesMax
}

type choiceValue struct {
	label string
	value any
}

// choiceValues are the values one option each can answer for f: a single
// choice's values, or true and false.
func choiceValues(f wire.ElicitField) []choiceValue {
	switch {
	case f.Type == "boolean":
		return []choiceValue{{"Yes", true}, {"No", false}}
	case f.Type == "string" && len(f.Choices) > 0:
		out := make([]choiceValue, 0, len(f.Choices))
		for _, c := range f.Choices {
			out = append(out, choiceValue{choiceLabel(c), c.Value})
		}
		return out
	}
	return nil
}

// elicitAnswer turns the option the user chose (and the form a client
// filled in, for accept) into the answer the server gets. An answer that
// does not fit the form is an error: the caller declines.
func elicitAnswer(e mcp.Elicitation, optionID string, content map[string]any) (mcp.ElicitAnswer, error) {
	accept := func(c map[string]any) mcp.ElicitAnswer {
		return mcp.ElicitAnswer{Action: wire.ElicitAccept, Content: c}
	}
	switch {
	case optionID == wire.OptionDecline || optionID == "":
		return mcp.ElicitAnswer{Action: wire.ElicitDecline}, nil
	case e.Mode == wire.ElicitURL:
		if optionID != wire.OptionAccept {
			return mcp.ElicitAnswer{}, fmt.Errorf("option %q does not answer a URL question", optionID)
		}
		return accept(nil), nil
	case optionID == wire.OptionAcceptDefaults:
		c, err := FormContent(e.Fields, nil)
		return accept(c), err
	case strings.HasPrefix(optionID, wire.OptionChoicePrefix):
		var undefaulted []wire.ElicitField
		for _, f := range e.Fields {
			if len(f.Default) == 0 {
				undefaulted = append(undefaulted, f)
			}
		}
		f, ok := choiceField(e.Fields, undefaulted)
		var i int
		if _, err := fmt.Sscanf(optionID[len(wire.OptionChoicePrefix):], "%d", &i); err != nil || !ok || i < 0 || i >= len(choiceValues(f)) {
			return mcp.ElicitAnswer{}, fmt.Errorf("option %q is not a choice of this form", optionID)
		}
		c, err := FormContent(e.Fields, map[string]any{f.Name: choiceValues(f)[i].value})
		return accept(c), err
	case optionID == wire.OptionAccept:
		c, err := FormContent(e.Fields, content)
		return accept(c), err
	}
	return mcp.ElicitAnswer{}, fmt.Errorf("unknown option %q", optionID)
}

// FormContent checks what a user entered against a form's fields and fills
// the defaults of the fields left out: numbers are numbers (integers
// whole, within minimum and maximum), a choice is one of its values, a
// required field without a default must be given, and nothing the form
// does not ask for is sent. The error says which field and what was expected.
func FormContent(fields []wire.ElicitField, given map[string]any) (map[string]any, error) {
	out := map[string]any{}
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
		v, ok := given[f.Name]
		if !ok || v == nil {
			if len(f.Default) > 0 {
				var d any
				if err := json.Unmarshal(f.Default, &d); err == nil {
					out[f.Name] = d
				}
				continue
			}
			if f.Required {
				return nil, fmt.Errorf("field %s is required", trust.Visible(f.Name))
			}
			continue
		}
		cv, err := fieldValue(f, v)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", trust.Visible(f.Name), err)
		}
		out[f.Name] = cv
	}
	for k := range given {
		if !known[k] {
			return nil, fmt.Errorf("the form has no field %s", trust.Visible(k))
		}
	}
	return out, nil
}

// fieldValue checks one value against its field.
func fieldValue(f wire.ElicitField, v any) (any, error) {
	switch f.Type {
	case "boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("expected true or false, got %v", v)
	case "number", "integer":
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case int:
			n = float64(x)
		case int64:
			n = float64(x)
		case json.Number:
			var err error
			if n, err = x.Float64(); err != nil {
				return nil, fmt.Errorf("expected a number, got %q", x)
			}
		default:
			return nil, fmt.Errorf("expected a number, got %v", v)
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("expected a whole number, got %v", n)
		}
		if f.Minimum != nil && n < *f.Minimum || f.Maximum != nil && n > *f.Maximum {
			return nil, fmt.Errorf("%v is out of range (%s)", n, rangeText(f))
		}
		if f.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	case "array":
		list, ok := v.([]any)
		if !ok {
			if ss, isStrings := v.([]string); isStrings {
				for _, s := range ss {
					list = append(list, s)
				}
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("expected a list of choices, got %v", v)
		}
		out := make([]any, 0, len(list))
		for _, x := range list {
			s, isString := x.(string)
			if !isString || !isChoice(f, s) {
				return nil, fmt.Errorf("%v is not one of the choices", x)
			}
			out = append(out, s)
		}
		return out, nil
	default:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("expected text, got %v", v)
		}
		if len(f.Choices) > 0 && !isChoice(f, s) {
			return nil, fmt.Errorf("%q is not one of the choices", s)
		}
		n := len([]rune(s))
		if f.MinLength != nil && n < *f.MinLength || f.MaxLength != nil && n > *f.MaxLength {
			return nil, fmt.Errorf("%d characters, outside the allowed length", n)
		}
		return s, nil
	}
}

func isChoice(f wire.ElicitField, s string) bool {
	for _, c := range f.Choices {
		if c.Value == s {
			return true
		}
	}
	return false
}

func rangeText(f wire.ElicitField) string {
	lo, hi := "…", "…"
	if f.Minimum != nil {
		lo = fmt.Sprint(*f.Minimum)
	}
	if f.Maximum != nil {
		hi = fmt.Sprint(*f.Maximum)
	}
	return lo + ".." + hi
}
