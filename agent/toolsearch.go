package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
)

// Tool search: when the MCP tools of a turn pass the provider's count
// limit ([model] max_tools; 128 on the OpenAI wire, which refuses more) or
// the token budget ([mcp] tool_budget_tokens), a request offers the
// built-ins, the MCP tools the session used or found most recently, and
// search_tools, which ranks every connected tool (BM25 over name, server
// and description) and loads what it returns for the next request. A tool
// found by search is gated exactly like any other: search changes what is
// offered, never what is allowed.

// searchToolName is the built-in that finds MCP tools not offered.
const searchToolName = "search_tools"

// loadedPrefix starts a search_tools result; the names after it are what
// it loaded, read back from the history when a session continues.
const loadedPrefix = "Loaded for your next request: "

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

func init() {
	register(builtin{
		def: model.ToolDef{
			Name: searchToolName,
			Description: "Search the connected MCP tools that are not offered in this request (there are too many to offer at once). " +
				"Describe what you need in a few words; the best matches are listed with their descriptions and become callable from your next request.",
			Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what the tool should do, in a few words"},"limit":{"type":"integer","description":"how many tools to load (default 5, at most 20)"}},"required":["query"],"additionalProperties":false}`),
		},
		run: func(_ context.Context, env *toolEnv, in json.RawMessage) (string, error) {
			var a searchArgs
			if err := decodeArgs(searchToolName, in, &a, `{"query": "create a GitHub issue", "limit"?: 5}`); err != nil {
				return "", err
			}
			if strings.TrimSpace(a.Query) == "" {
				return "", fmt.Errorf("query is empty: say what the tool should do")
			}
			if env.searchTools == nil {
				return "", fmt.Errorf("every connected tool is already offered in this request: no search is needed")
			}
			return env.searchTools(a.Query, a.Limit), nil
		},
	})
}

// toolOffer decides which tools a request offers.
type toolOffer struct {
	maxTools int // 0: no count limit
	budget   int // tokens of MCP definitions
}

// offer narrows all (built-ins first, then MCP tools) to what one request
// carries; searching reports whether search_tools is among them. loaded
// lists MCP tool names most recently used or found first.
func (o toolOffer) offer(all []model.ToolDef, loaded []string) (defs []model.ToolDef, searching bool) {
	var builtin, mcpDefs []model.ToolDef
	for _, d := range all {
		if _, ok := builtins[d.Name]; ok {
			if d.Name != searchToolName {
				builtin = append(builtin, d)
			}
		} else {
			mcpDefs = append(mcpDefs, d)
		}
	}
	fits := (o.maxTools == 0 || len(builtin)+len(mcpDefs) <= o.maxTools) && toolsTokens(mcpDefs) <= o.budget
	if fits {
		return append(builtin, mcpDefs...), false
	}
	byName := map[string]model.ToolDef{}
	for _, d := range mcpDefs {
		byName[d.Name] = d
	}
	room := len(mcpDefs)
	if o.maxTools > 0 {
		room = max(0, o.maxTools-len(builtin)-1)
	}
	budget := o.budget
	var picked []model.ToolDef
	seen := map[string]bool{}
	for _, n := range loaded {
		d, ok := byName[n]
		if !ok || seen[n] || len(picked) >= room {
			continue
		}
		cost := toolsTokens([]model.ToolDef{d})
		if cost > budget {
			continue
		}
		budget -= cost
		seen[n] = true
		picked = append(picked, d)
	}
	// Offer them in a stable order (the listing's), so the prompt prefix
	// stays byte-identical while the set does.
	sort.SliceStable(picked, func(i, j int) bool { return picked[i].Name < picked[j].Name })
	defs = append(builtin, builtins[searchToolName].def)
	return append(defs, picked...), true
}

// loadedFromHistory lists the MCP tools a history used or loaded by
// search, most recent first.
func loadedFromHistory(msgs []model.Message) []string {
	var out []string
	uses := map[string]string{} // tool_use id -> name
	for i := len(msgs) - 1; i >= 0; i-- {
		for j := len(msgs[i].Content) - 1; j >= 0; j-- {
			b := msgs[i].Content[j]
			switch b.Type {
			case "tool_use":
				uses[b.ID] = b.Name
				if b.Name != searchToolName {
					out = append(out, b.Name)
				}
			case "tool_result":
				if rest, ok := strings.CutPrefix(b.Content, loadedPrefix); ok {
					line, _, _ := strings.Cut(rest, "\n")
					for _, n := range strings.Split(line, ", ") {
						if n = strings.TrimSpace(n); n != "" {
							out = append(out, n)
						}
					}
				}
			}
		}
	}
	return out
}

// search ranks tools for query with BM25 over their name (split at _ and
// case changes), server and description.
func search(tools []mcp.Tool, query string, limit int) []mcp.Tool {
	docs := make([][]string, len(tools))
	df := map[string]int{}
	total := 0
	for i, t := range tools {
		docs[i] = terms(t.Name + " " + t.Server + " " + t.ServerTool + " " + t.Description)
		total += len(docs[i])
		seen := map[string]bool{}
		for _, w := range docs[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	if len(tools) == 0 {
		return nil
	}
	avg := float64(total) / float64(len(tools))
	const k1, b = 1.2, 0.75
	q := terms(query)
	type scored struct {
		i int
		s float64
	}
	var ranked []scored
	for i, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		s := 0.0
		for _, w := range q {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (float64(len(tools))-float64(df[w])+0.5)/(float64(df[w])+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avg))
		}
		if s > 0 {
			ranked = append(ranked, scored{i, s})
		}
	}
	sort.SliceStable(ranked, func(x, y int) bool { return ranked[x].s > ranked[y].s })
	var out []mcp.Tool
	for _, r := range ranked {
		if len(out) == limit {
			break
		}
		out = append(out, tools[r.i])
	}
	return out
}

// terms lower-cases and splits text into words, splitting snake_case and
// camelCase names too.
func terms(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 || (len(cur) == 1 && unicode.IsDigit(cur[0])) {
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	prev := rune(0)
	for _, r := range s {
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// searchTools is the run's search_tools: it ranks the connected MCP tools,
// loads the matches for the next request and describes them.
func (r *run) searchTools(query string, limit int) string {
	if limit <= 0 {
		limit = 5
	}
	limit = min(limit, 20)
	var tools []mcp.Tool
	for _, t := range r.mcpTools {
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	found := search(tools, query, limit)
	if len(found) == 0 {
		return fmt.Sprintf("No connected tool matches %q. Try other words (what the tool acts on, or the server's name).", query)
	}
	names := make([]string, len(found))
	var b strings.Builder
	for i, t := range found {
		names[i] = t.Name
		r.loaded = append([]string{t.Name}, r.loaded...)
		fmt.Fprintf(&b, "- %s (MCP server %q): %s\n", t.Name, t.Server, capRunes(oneLine(t.Description), 300))
	}
	return loadedPrefix + strings.Join(names, ", ") + "\n\n" + b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// toolOfferFor is the offer rule of this run's model and window.
func (c *Core) toolOfferFor(provider model.Provider, window int) toolOffer {
	return toolOffer{
		maxTools: config.MaxToolsFor(c.cfg.Model.MaxTools, provider.Name()),
		budget:   config.ToolBudgetFor(c.cfg.MCP.ToolBudgetTokens, window),
	}
}
