package acp

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/agent"
)

// promptCommands are the slash commands of the prompts connected servers
// list. Their descriptions are the servers' text, escaped.
func promptCommands(core *agent.Core) []availableCommand {
	var out []availableCommand
	for _, p := range core.Prompts() {
		name := p.CommandName()
		if name == "" {
			continue
		}
		c := availableCommand{Name: name, Description: p.CommandDescription()}
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

// runPrompt runs an MCP prompt as this session's turn, or says why not.
func (s *session) runPrompt(ctx context.Context, ref *agent.PromptRef, problem string) (promptResponse, error) {
	if problem != "" {
		s.send(sessionUpdate{SessionUpdate: updateAgentMessage, Content: ptr(textBlock("agentls: " + problem))})
		return promptResponse{StopReason: StopEndTurn}, nil
	}
	return s.runTurn(ctx, agent.RunRequest{MCPPrompt: ref})
}
