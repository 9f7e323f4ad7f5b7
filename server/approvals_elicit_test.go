package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// askServer is the Go fault server as MCP server "q", its ask tool allowed.
func askServer(t *testing.T) string {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	return fmt.Sprintf("[mcp.servers.q]\ncommand = %q\n\n[mcp.policy]\n\"q__ask\" = \"allow\"\n", bin)
}

func askTurn(args string) modeltest.Turn {
	return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "q__ask", Input: args}}}
}

const colorForm = `{"message":"Pick a colour","schema":{"type":"object","properties":{"color":{"type":"string","title":"Colour","enum":["r","g"],"enumNames":["Red","Green"]}},"required":["color"]}}`

// TestElicitationThroughTheRequestCardWithAForm: server-everything's form
// reaches a client that announced approvals and forms as an
// agent/requestApproval of kind elicitation carrying the fields; the
// content the client sends back with option accept reaches the server.
func TestElicitationThroughTheRequestCardWithAForm(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	e := newEnv(t, fmt.Sprintf("[mcp.servers.ev]\nurl = %q\n\n[mcp.policy]\n\"ev__trigger-elicitation-request\" = \"allow\"\n", everything.URL))
	c := e.start(t)
	cp := caps(true, false, false)
	cp["experimental"].(map[string]any)["agentls"].(map[string]any)["forms"] = true
	var card struct {
		Kind        string `json:"kind"`
		Server      string `json:"server"`
		Title       string `json:"title"`
		Elicitation struct {
			Mode    string `json:"mode"`
			Message string `json:"message"`
			Fields  []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"fields"`
		} `json:"elicitation"`
		Options []struct{ OptionID string } `json:"options"`
	}
	c.setAnswer(func(method string, params json.RawMessage) (any, error) {
		if method == "agent/requestApproval" {
			json.Unmarshal(params, &card)
			return map[string]any{"outcome": "selected", "optionId": "accept", "content": map[string]any{"name": "Ada", "integer": 12}}, nil
		}
		return defaultAnswer(method, params)
	})
	c.initialize(e.root, cp)
	c.waitState("ev", "connected")
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "ev__trigger-elicitation-request", Input: `{}`}}},
		modeltest.Turn{Text: "asked"})
	if r := c.await(c.runAsync(map[string]any{"prompt": "ask"})); r.StopReason != "end_turn" {
		t.Fatalf("result %+v", r)
	}
	if got := toolResult(t, e.model); !strings.Contains(got.Content, "- Name: Ada") || !strings.Contains(got.Content, "- Favorite Integer: 12") {
		t.Fatalf("tool result %+v", got)
	}
	if card.Kind != "elicitation" || card.Server != "ev" || card.Elicitation.Mode != "form" || len(card.Elicitation.Fields) < 10 ||
		card.Elicitation.Fields[0].Name != "name" || !card.Elicitation.Fields[0].Required ||
		len(card.Options) != 2 || card.Options[0].OptionID != "accept" || card.Options[1].OptionID != "decline" {
		t.Errorf("card %+v", card)
	}
}

// TestElicitationThroughTheMessageCard: a one-choice form on an editor
// that can only pick (window/showMessageRequest) offers one action per
// value and Decline; the pick reaches the server. A form with a free-text
// field is declined there without a card.
func TestElicitationThroughTheMessageCard(t *testing.T) {
	e := newEnv(t, askServer(t))
	c := e.start(t)
	var actions []string
	var message string
	c.setAnswer(func(method string, params json.RawMessage) (any, error) {
		if method == "window/showMessageRequest" {
			var p struct {
				Message string
				Actions []struct{ Title string }
			}
			json.Unmarshal(params, &p)
			message = p.Message
			for _, a := range p.Actions {
				actions = append(actions, a.Title)
			}
			return map[string]string{"title": "Colour: Green (g)"}, nil
		}
		return defaultAnswer(method, params)
	})
	c.initialize(e.root, caps(false, false, true))
	c.waitState("q", "connected")
	e.model.Script(askTurn(colorForm), modeltest.Turn{Text: "asked"})
	c.await(c.runAsync(map[string]any{"prompt": "ask"}))
	if got := toolResult(t, e.model); got.Content != `{"action":"accept","content":{"color":"g"}}` {
		t.Fatalf("tool result %+v", got)
	}
	if strings.Join(actions, "|") != "Colour: Red (r)|Colour: Green (g)|Decline" {
		t.Errorf("actions %q", actions)
	}
	if !strings.HasPrefix(message, "q asks: Pick a colour\nMCP server q asks (its own words):\n  │ Pick a colour") {
		t.Errorf("message %q", message)
	}
}

// TestElicitationThroughCodeActions is Helix's path: a form whose every
// field has a default offers "Accept with defaults" as a code action; run,
// the defaults reach the server.
func TestElicitationThroughCodeActions(t *testing.T) {
	e := newEnv(t, askServer(t))
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	c.waitState("q", "connected")
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	e.model.Script(askTurn(`{"message":"Confirm the export","schema":{"type":"object","properties":{"format":{"type":"string","default":"csv"},"rows":{"type":"integer","default":100}}}}`),
		modeltest.Turn{Text: "asked"})
	res, errc := c.runAsync(map[string]any{"prompt": "ask", "textDocument": map[string]string{"uri": doc}})
	c.waitFor("the approval message", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "approval needed: q asks: Confirm the export")
	})
	var actions []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": doc},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}, "triggerKind": 1},
	}, &actions)
	if len(actions) < 2 || actions[0].Title != `agentls: Accept with defaults: format="csv", rows=100: q asks: Confirm the export` ||
		!strings.HasPrefix(actions[1].Title, "agentls: Decline: ") {
		t.Fatalf("code actions %+v", actions)
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command, "arguments": actions[0].Command.Arguments}, nil)
	c.await(res, errc)
	if got := toolResult(t, e.model); got.Content != `{"action":"accept","content":{"format":"csv","rows":100}}` {
		t.Fatalf("tool result %+v", got)
	}
}

// TestElicitationURLThroughShowDocument: a URL question, once the user
// picks Open, opens through window/showDocument with external: true; an
// editor without showDocument gets the URL in a message instead.
func TestElicitationURLThroughShowDocument(t *testing.T) {
	for _, showDocument := range []bool{true, false} {
		t.Run(fmt.Sprintf("showDocument %v", showDocument), func(t *testing.T) {
			e := newEnv(t, askServer(t))
			c := e.start(t)
			var opened []string
			c.setAnswer(func(method string, params json.RawMessage) (any, error) {
				switch method {
				case "agent/requestApproval":
					return map[string]any{"outcome": "selected", "optionId": "accept"}, nil
				case "window/showDocument":
					var p struct {
						URI      string `json:"uri"`
						External bool   `json:"external"`
					}
					json.Unmarshal(params, &p)
					if p.External {
						opened = append(opened, p.URI)
					}
					return map[string]bool{"success": true}, nil
				}
				return defaultAnswer(method, params)
			})
			cp := caps(true, false, false)
			if showDocument {
				cp["window"].(map[string]any)["showDocument"] = map[string]any{"support": true}
			}
			c.initialize(e.root, cp)
			c.waitState("q", "connected")
			e.model.Script(askTurn(`{"message":"Approve it","url":"https://127.0.0.1:9/consent?id=7"}`), modeltest.Turn{Text: "asked"})
			c.await(c.runAsync(map[string]any{"prompt": "ask"}))
			if got := toolResult(t, e.model); got.Content != `{"action":"accept","content":null}` {
				t.Fatalf("tool result %+v", got)
			}
			if showDocument {
				if len(opened) != 1 || opened[0] != "https://127.0.0.1:9/consent?id=7" {
					t.Errorf("showDocument opened %v", opened)
				}
				return
			}
			c.waitFor("the URL in a message", func(m message) bool {
				return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "open this URL in your browser: https://127.0.0.1:9/consent?id=7")
			})
		})
	}
}
