package wire

import "encoding/json"

// AppParams name the App of a tool result (its ui field).
type AppParams struct {
	Server      string `json:"server"`
	ResourceURI string `json:"resourceUri"`
}

// AppResult is an MCP App's HTML and the origins it says it needs; the
// client shows it in a sandbox whose policy allows those origins only.
type AppResult struct {
	ResourceURI   string `json:"resourceUri"`
	HTML          string `json:"html"`
	CSP           AppCSP `json:"csp"`
	PrefersBorder *bool  `json:"prefersBorder,omitempty"`
}

// AppCSP are an App's origins, each an http(s) or ws(s) origin.
type AppCSP struct {
	ConnectDomains  []string `json:"connectDomains"`
	ResourceDomains []string `json:"resourceDomains"`
	FrameDomains    []string `json:"frameDomains"`
}

// AppCallParams are a tools/call an App made: a tool of the App's own
// server (the server's name for it), in the session the App was shown in.
type AppCallParams struct {
	SessionID   string          `json:"sessionId"`
	Server      string          `json:"server"`
	ResourceURI string          `json:"resourceUri"`
	Tool        string          `json:"tool"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
}

// AppCallResult is how an App's call ended: the text the model would
// have got, and its status (denied when the card was refused).
type AppCallResult struct {
	Text              string          `json:"text"`
	IsError           bool            `json:"isError"`
	Status            ToolStatus      `json:"status"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}
