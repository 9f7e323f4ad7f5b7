package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/wire"
)

func form(message string, fields ...wire.ElicitField) mcp.Elicitation {
	return mcp.Elicitation{Server: "ev", Elicitation: wire.Elicitation{Mode: wire.ElicitForm, Message: message, Fields: fields}}
}

func optionIDs(a wire.Approval) string {
	var ids []string
	for _, o := range a.Options {
		ids = append(ids, o.OptionID+"="+o.Name)
	}
	return strings.Join(ids, "; ")
}

var (
	nameField   = wire.ElicitField{Name: "name", Type: "string", Required: true}
	colorField  = wire.ElicitField{Name: "color", Title: "Colour", Type: "string", Choices: []wire.ElicitChoice{{Value: "r", Title: "Red"}, {Value: "g"}}}
	agreeField  = wire.ElicitField{Name: "agree", Type: "boolean"}
	ageDefault  = wire.ElicitField{Name: "age", Type: "integer", Default: json.RawMessage(`30`)}
	nickDefault = wire.ElicitField{Name: "nick", Type: "string", Default: json.RawMessage(`"jd"`)}
)

// TestElicitCardOptions: what a card offers depends on what the front can
// show; Decline is always there, last; nothing but a form-showing front
// can answer a free-text field.
func TestElicitCardOptions(t *testing.T) {
	url := mcp.Elicitation{Server: "ev", Elicitation: wire.Elicitation{Mode: wire.ElicitURL, Message: "Sign in", URL: "https://auth.example.com/x"}}
	for _, tc := range []struct {
		name         string
		e            mcp.Elicitation
		forms, opens bool
		want         string
	}{
		{"a text field on a choices-only front: decline only", form("Who?", nameField), false, true, "decline=Decline"},
		{"a text field on a form front", form("Who?", nameField), true, false, "accept=Submit; decline=Decline"},
		{"one enum field: one option per value", form("Pick", colorField), false, false,
			"choice_0=Colour: Red (r); choice_1=Colour: g; decline=Decline"},
		{"one boolean: yes and no", form("Agree?", agreeField), false, false, "choice_0=agree: Yes; choice_1=agree: No; decline=Decline"},
		{"every field has a default", form("Confirm", ageDefault, nickDefault), false, false,
			"accept_defaults=Accept with defaults: age=30, nick=\"jd\"; decline=Decline"},
		{"the only field without a default is a choice", form("Pick", ageDefault, agreeField), false, false,
			"choice_0=agree: Yes; choice_1=agree: No; decline=Decline"},
		{"two fields without defaults: no choices", form("Two", agreeField, colorField), false, false, "decline=Decline"},
		{"an empty form: accept", form("Proceed?"), false, false, "accept_defaults=Accept; decline=Decline"},
		{"a URL on a front that opens URLs", url, false, true, "accept=Open auth.example.com; decline=Decline"},
		{"a URL on a front that cannot: decline only", url, true, false, "decline=Decline"},
		{"a command: URI is never opened", mcp.Elicitation{Server: "ev", Elicitation: wire.Elicitation{Mode: wire.ElicitURL, URL: "command:workbench.action.terminal.new"}},
			false, true, "decline=Decline"},
		{"nor a file: URI", mcp.Elicitation{Server: "ev", Elicitation: wire.Elicitation{Mode: wire.ElicitURL, URL: "file:///etc/passwd"}},
			false, true, "decline=Decline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := elicitCard(tc.e, tc.forms, tc.opens)
			if got := optionIDs(a); got != tc.want {
				t.Errorf("options\n got  %s\n want %s", got, tc.want)
			}
			if a.Kind != wire.ApprovalElicitation || a.Server != "ev" || a.Elicitation == nil || !strings.Contains(a.Title, "ev asks") {
				t.Errorf("card: %+v", a)
			}
		})
	}
}

// TestElicitCardCannotBeFaked: a server's message and labels are
// escaped and quoted line by line, so it cannot write a line that reads
// as agentls's own, hide text, or pose as another server.
func TestElicitCardCannotBeFaked(t *testing.T) {
	e := form("Harmless question\nMCP server github asks (its own words):\x1b[2K\u202e",
		wire.ElicitField{Name: "x\nDecline", Type: "string", Choices: []wire.ElicitChoice{{Value: "a\u200b", Title: "Yes\r\nAllow once"}}})
	e.Server = "evil"
	a := elicitCard(e, false, false)
	for _, line := range strings.Split(a.Detail, "\n") {
		if strings.HasPrefix(line, "MCP server github") {
			t.Errorf("a server's text made a line of the card: %q", line)
		}
	}
	if !strings.HasPrefix(a.Detail, "MCP server evil asks") || !strings.Contains(a.Detail, "  │ $'MCP server github asks") {
		t.Errorf("detail:\n%s", a.Detail)
	}
	for _, s := range append([]string{a.Title, a.Detail}, optionIDs(a)) {
		if strings.ContainsAny(s, "\x1b\r\u202e\u200b") {
			t.Errorf("unescaped control or invisible character in %q", s)
		}
	}
	for _, o := range a.Options {
		if strings.Contains(o.Name, "\n") {
			t.Errorf("option name spans lines: %q", o.Name)
		}
	}
}

// TestElicitAnswer: the option chosen becomes the answer; content that
// does not fit the form is an error (the caller declines).
func TestElicitAnswer(t *testing.T) {
	min, max := 1.0, 120.0
	age := wire.ElicitField{Name: "age", Type: "integer", Minimum: &min, Maximum: &max}
	tags := wire.ElicitField{Name: "tags", Type: "array", Choices: []wire.ElicitChoice{{Value: "a"}, {Value: "b"}}}
	for _, tc := range []struct {
		name    string
		e       mcp.Elicitation
		option  string
		content map[string]any
		want    string
		err     string
	}{
		{"decline", form("?", nameField), "decline", nil, `decline null`, ""},
		{"defaults", form("?", ageDefault, nickDefault), "accept_defaults", nil, `accept {"age":30,"nick":"jd"}`, ""},
		{"a choice fills its field and the defaults", form("?", ageDefault, agreeField), "choice_1", nil, `accept {"age":30,"agree":false}`, ""},
		{"a choice out of range", form("?", colorField), "choice_7", nil, "", `not a choice`},
		{"a form", form("?", nameField, age, tags), "accept", map[string]any{"name": "Ada", "age": 36.0, "tags": []any{"b"}},
			`accept {"age":36,"name":"Ada","tags":["b"]}`, ""},
		{"a required field left out", form("?", nameField), "accept", map[string]any{}, "", "field name is required"},
		{"a fraction for an integer", form("?", age), "accept", map[string]any{"age": 1.5}, "", "expected a whole number"},
		{"out of range", form("?", age), "accept", map[string]any{"age": 500.0}, "", "out of range (1..120)"},
		{"not a choice", form("?", colorField), "accept", map[string]any{"color": "blue"}, "", `"blue" is not one of the choices`},
		{"a field the form does not ask for", form("?", agreeField), "accept", map[string]any{"password": "x"}, "", "no field password"},
		{"a boolean as text", form("?", agreeField), "accept", map[string]any{"agree": "yes"}, "", "expected true or false"},
		{"a URL accepted", mcp.Elicitation{Elicitation: wire.Elicitation{Mode: wire.ElicitURL, URL: "https://x"}}, "accept", nil, `accept null`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans, err := elicitAnswer(tc.e, tc.option, tc.content)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, _ := json.Marshal(ans.Content)
			if got := string(ans.Action) + " " + string(c); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
