package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	promptsLog  = flag.String("prompts-log", "", `add prompts "review" (optional argument focus), "greet" (required argument name) and "asking" (asks the user); every prompts/get appends "NAME ARGS" to this file`)
	extraPrompt = flag.String("prompt", "", "add a prompt with exactly this name (any bytes: tests of hostile names); needs -prompts-log")
)

// addPrompts lets tests see whether prompts/get reached the server at all:
// a policy that denies a prompt must never ask the server for it.
func addPrompts(s *mcp.Server) {
	if *promptsLog == "" {
		return
	}
	record := func(req *mcp.GetPromptRequest) {
		f, err := os.OpenFile(*promptsLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "faultserver:", err)
			return
		}
		fmt.Fprintf(f, "%s %v\n", req.Params.Name, req.Params.Arguments)
		f.Close()
	}
	user := func(text string) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}
	}
	s.AddPrompt(&mcp.Prompt{Name: "review", Title: "Review", Description: "Review the open change.",
		Arguments: []*mcp.PromptArgument{{Name: "focus", Description: "what to look at"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			record(req)
			text := "Review the change in this workspace."
			if f := req.Params.Arguments["focus"]; f != "" {
				text += " Focus on " + f + "."
			}
			return user(text), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.",
		Arguments: []*mcp.PromptArgument{{Name: "name", Description: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			record(req)
			return user("Say hello to " + req.Params.Arguments["name"] + "."), nil
		})
	// asking puts a question to the user (a 2026-07-28 input request in
	// prompts/get) and answers with the answer's action.
	s.AddPrompt(&mcp.Prompt{Name: "asking", Description: "Asks the user which, then answers with the action."},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			record(req)
			if r, ok := req.Params.InputResponses["q"].(*mcp.ElicitResult); ok {
				return user("answered " + r.Action), nil
			}
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Mode: "form", Message: "Which?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}}}, nil
		})
	if *extraPrompt != "" {
		s.AddPrompt(&mcp.Prompt{Name: *extraPrompt, Description: "A prompt whose name is the test's."},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				record(req)
				return user("hostile prompt text"), nil
			})
	}
}
