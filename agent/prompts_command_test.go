package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPromptArguments: the text after a prompt's slash command, as ACP and
// `agentls chat` both read it.
func TestPromptArguments(t *testing.T) {
	args := func(names ...string) ServerPrompt {
		var p ServerPrompt
		p.Name = "p"
		for _, n := range names {
			req := strings.HasSuffix(n, "!")
			p.Arguments = append(p.Arguments, struct {
				Name        string `json:"name"`
				Description string `json:"description,omitempty"`
				Required    bool   `json:"required,omitempty"`
			}{Name: strings.TrimSuffix(n, "!"), Required: req})
		}
		return p
	}
	for _, c := range []struct {
		name string
		p    ServerPrompt
		text string
		want string // JSON of the map, or "error: ..."
	}{
		{"pairs", args("city!", "state"), `city=Lyon state=Rhône`, `{"city":"Lyon","state":"Rhône"}`},
		{"a quoted value keeps its spaces", args("city!"), `city="Le Puy"`, `{"city":"Le Puy"}`},
		{"plain text is the first required argument", args("state", "city!"), `Le Puy en Velay`, `{"city":"Le Puy en Velay"}`},
		{"plain text is the only argument", args("topic"), `error handling`, `{"topic":"error handling"}`},
		{"nothing is no arguments", args("city!"), ``, `null`},
		{"plain text for a prompt of several optional arguments", args("a", "b"), `x`, `error: write the arguments of p as name=value`},
		{"a word that is not a pair", args("a", "b"), `a=1 b`, `error: "b" is not name=value`},
		{"an open quote", args("a"), `a="x`, `error: a quote is not closed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := promptArguments(c.p, c.text)
			s := ""
			if err != nil {
				s = "error: " + err.Error()
			} else {
				b, _ := json.Marshal(got)
				s = string(b)
			}
			if !strings.HasPrefix(s, c.want) {
				t.Errorf("promptArguments(%q) = %s, want %s", c.text, s, c.want)
			}
		})
	}
}
