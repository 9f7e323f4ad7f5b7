package tools

import (
	"context"
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

var searchToolsTool = newBuiltin(builtin{kind: wire.KindSearch, readOnly: true},
	SearchToolName, "Find connected MCP tools not offered here (too many to offer at once): query says what you need in a few words; "+
		"the best matches (limit: default 5, at most 20) are listed and become callable from your next request.", searchTools)

func searchTools(_ context.Context, env *Env, _ Call, a *searchArgs) (string, error) {
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
