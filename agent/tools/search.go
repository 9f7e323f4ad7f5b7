package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/wire"
)

// SearchToolName is the built-in that finds MCP tools not offered in a
// request (there are too many to offer at once).
const SearchToolName = "search_tools"

// ErrAllOffered is search_tools's answer when nothing needs searching.
var ErrAllOffered = errors.New("every connected tool is already offered in this request: no search is needed")

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

var searchToolsTool = &builtin{
	def: model.ToolDef{
		Name: SearchToolName,
		Description: "Search the connected MCP tools that are not offered in this request (there are too many to offer at once). " +
			"Describe what you need in a few words; the best matches are listed with their descriptions and become callable from your next request.",
		Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what the tool should do, in a few words"},"limit":{"type":"integer","description":"how many tools to load (default 5, at most 20)"}},"required":["query"],"additionalProperties":false}`),
	},
	kind: wire.KindSearch, run: searchTools, readOnly: true,
}

func searchTools(_ context.Context, env *Env, _ Call, in json.RawMessage) (string, error) {
	var a searchArgs
	if err := decodeArgs(SearchToolName, in, &a, `{"query": "create a GitHub issue", "limit"?: 5}`); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Query) == "" {
		return "", fmt.Errorf("query is empty: say what the tool should do")
	}
	if env.Search == nil {
		return "", ErrAllOffered
	}
	return env.Search.SearchTools(a.Query, a.Limit)
}

// SearchDef is search_tools's definition, offered when the tools of a
// request were narrowed.
func SearchDef() model.ToolDef { return searchToolsTool.def }
