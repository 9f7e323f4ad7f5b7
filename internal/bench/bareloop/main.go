// Command bareloop is the floor the peers' comparison (scripts/peers.sh,
// internal/bench/measure_peers_test.go) measures coding agents against: the
// least a program can do to run a task with a model and MCP servers. It
// connects to every server, offers the model their tools as the servers
// list them (named SERVER__TOOL, no other tool, no system prompt), calls
// what the model asks for and sends the results back, until the model
// answers without a tool call. It speaks the OpenAI chat completions wire
// without streaming, asks nobody (a server's form is declined) and keeps
// nothing.
//
//	bareloop -model URL [-name MODEL] -prompt TEXT -server 'NAME PROGRAM ARGS...' ...
//
// It is a benchmark's tool, not part of agentls.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type servers []string

func (s *servers) String() string     { return strings.Join(*s, "; ") }
func (s *servers) Set(v string) error { *s = append(*s, v); return nil }

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Parameters  any    `json:"parameters"`
	} `json:"function"`
}

type route struct {
	session *sdk.ClientSession
	name    string
}

func main() {
	var list servers
	modelURL := flag.String("model", "", "the OpenAI-shaped base URL (…/v1)")
	name := flag.String("name", "fake-model", "the model's name")
	prompt := flag.String("prompt", "", "the task")
	flag.Var(&list, "server", "an MCP server: 'NAME PROGRAM ARGS...' (repeatable)")
	flag.Parse()
	if *modelURL == "" || *prompt == "" {
		fmt.Fprintln(os.Stderr, "bareloop: -model and -prompt are required")
		os.Exit(2)
	}
	if err := run(context.Background(), *modelURL, *name, *prompt, list); err != nil {
		fmt.Fprintln(os.Stderr, "bareloop:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, modelURL, name, prompt string, list servers) error {
	// It declares elicitation as agentls does (declining every form), so a
	// server that lists tools by the client's capabilities lists the same.
	client := sdk.NewClient(&sdk.Implementation{Name: "bareloop", Version: "1"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}})
	routes := map[string]route{}
	var tools []tool
	type connected struct {
		name  string
		cs    *sdk.ClientSession
		tools []*sdk.Tool
		err   error
	}
	done := make(chan connected, len(list))
	for _, s := range list {
		f := strings.Fields(s)
		if len(f) < 2 {
			return fmt.Errorf("-server %q: expected 'NAME PROGRAM ARGS...'", s)
		}
		go func() {
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(f[1], f[2:]...)}, nil)
			c := connected{name: f[0], cs: cs, err: err}
			if err == nil {
				for t, err := range cs.Tools(ctx, nil) {
					if err != nil {
						c.err = err
						break
					}
					c.tools = append(c.tools, t)
				}
			}
			done <- c
		}()
	}
	for range list {
		c := <-done
		if c.err != nil {
			return fmt.Errorf("server %s: %v", c.name, c.err)
		}
		defer c.cs.Close()
		for _, t := range c.tools {
			var d tool
			d.Type, d.Function.Name, d.Function.Description, d.Function.Parameters = "function", c.name+"__"+t.Name, t.Description, t.InputSchema
			tools = append(tools, d)
			routes[d.Function.Name] = route{c.cs, t.Name}
		}
	}
	msgs := []message{{Role: "user", Content: prompt}}
	for {
		body, _ := json.Marshal(map[string]any{"model": name, "messages": msgs, "tools": tools})
		resp, err := http.Post(modelURL+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return fmt.Errorf("model: %s %s %v", resp.Status, raw, err)
		}
		var answer struct {
			Choices []struct {
				Message message `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil || len(answer.Choices) == 0 {
			return fmt.Errorf("model answered %s (%v)", raw, err)
		}
		m := answer.Choices[0].Message
		msgs = append(msgs, m)
		if len(m.ToolCalls) == 0 {
			fmt.Println(m.Content)
			return nil
		}
		for _, c := range m.ToolCalls {
			r, ok := routes[c.Function.Name]
			if !ok {
				return errors.New("the model called an unknown tool " + c.Function.Name)
			}
			var args map[string]any
			json.Unmarshal([]byte(c.Function.Arguments), &args)
			res, err := r.session.CallTool(ctx, &sdk.CallToolParams{Name: r.name, Arguments: args})
			text := ""
			if err != nil {
				text = err.Error()
			} else {
				for _, p := range res.Content {
					if t, ok := p.(*sdk.TextContent); ok {
						text += t.Text
					}
				}
			}
			msgs = append(msgs, message{Role: "tool", ToolCallID: c.ID, Content: text})
		}
	}
}
