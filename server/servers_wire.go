package server

import (
	"github.com/agentls/agentls/agent"
)

// wireServer is one row of agent/mcp/servers as docs/protocol.md gives Server:
// every field present, empty or not (the registry's rows omit an empty
// error and stderr tail). The outer fields shadow the embedded ones.
type wireServer struct {
	agent.ServerRow
	Command    []string   `json:"command"`
	EnvKeys    []string   `json:"envKeys"`
	Error      string     `json:"error"`
	StderrTail string     `json:"stderrTail"`
	Tools      []wireTool `json:"tools"`
}

// wireTool is one tool row: annotations is always an object.
type wireTool struct {
	agent.ToolRow
	Annotations any `json:"annotations"`
}

// serverRowsWire converts the agent's rows to the wire shape.
func serverRowsWire(rows []agent.ServerRow) []wireServer {
	out := make([]wireServer, 0, len(rows))
	for _, r := range rows {
		w := wireServer{ServerRow: r, Command: r.Command, EnvKeys: r.EnvKeys, Error: r.Error, StderrTail: r.StderrTail,
			Tools: make([]wireTool, 0, len(r.Tools))}
		if w.Command == nil {
			w.Command = []string{}
		}
		if w.EnvKeys == nil {
			w.EnvKeys = []string{}
		}
		for _, t := range r.Tools {
			var ann any = struct{}{}
			if t.Annotations != nil {
				ann = t.Annotations
			}
			w.Tools = append(w.Tools, wireTool{ToolRow: t, Annotations: ann})
		}
		out = append(out, w)
	}
	return out
}
