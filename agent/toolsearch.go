package agent

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
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

// loadedPrefix starts a search_tools result; the names after it are what
// it loaded, read back from the history when a session continues.
const loadedPrefix = "Loaded for your next request: "

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
		if tools.IsBuiltin(d.Name) {
			if d.Name != tools.SearchToolName {
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
	defs = append(builtin, tools.SearchDef())
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
				if b.Name != tools.SearchToolName {
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

// SearchTools is the run's search_tools (tools.Searcher): it ranks the
// connected MCP tools, loads the matches for the next request and
// describes them.
func (r *run) SearchTools(query string, limit int) (string, error) {
	if r.offered == nil {
		return "", tools.ErrAllOffered
	}
	if limit <= 0 {
		limit = 5
	}
	limit = min(limit, 20)
	found := search(r.mcpTools, query, limit)
	if len(found) == 0 {
		return fmt.Sprintf("No connected tool matches %q. Try other words (what the tool acts on, or the server's name).", query), nil
	}
	names := make([]string, len(found))
	var b strings.Builder
	// Searches of one response run side by side.
	r.loadedMu.Lock()
	defer r.loadedMu.Unlock()
	for i, t := range found {
		names[i] = t.Name
		r.loaded = append([]string{t.Name}, r.loaded...)
		fmt.Fprintf(&b, "- %s (MCP server %q): %s\n", t.Name, t.Server, tools.CapRunes(oneLine(t.Description), 300))
	}
	return loadedPrefix + strings.Join(names, ", ") + "\n\n" + b.String(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// toolOfferFor is the offer rule of this run's model and window.
func (c *Core) toolOfferFor(provider model.Provider, maxTools, window int) toolOffer {
	return toolOffer{
		maxTools: provider.Descriptor().MaxToolsFor(maxTools),
		budget:   config.ToolBudgetFor(c.cfg.MCP.ToolBudgetTokens, window),
	}
}

// mcpCount is how many of defs are MCP tools (not built-ins, not the search tool).
func mcpCount(defs []model.ToolDef) int {
	n := 0
	for _, d := range defs {
		if !tools.IsBuiltin(d.Name) {
			n++
		}
	}
	return n
}

// mcpTokens is what the definitions of defs' MCP tools take.
func mcpTokens(defs []model.ToolDef) int {
	var mcpDefs []model.ToolDef
	for _, d := range defs {
		if !tools.IsBuiltin(d.Name) {
			mcpDefs = append(mcpDefs, d)
		}
	}
	return toolsTokens(mcpDefs)
}
