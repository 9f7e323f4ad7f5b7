// Command report turns `go test -bench` output from agentls's benchmarks
// into one line per figure, `name: value (baseline: value, ratio: x)`,
// with the goal each figure is held to, and a verdict on how the scaling
// benchmarks grow. scripts/bench.sh pipes into it. It reads only its
// input and prints only to stdout.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// result is one benchmark line: its name (without "Benchmark" and the
// GOMAXPROCS suffix) and its metrics by unit.
type result struct {
	name    string
	metrics map[string]float64
	order   []string
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// parse reads benchmark lines; a benchmark that ran more than once keeps
// its last line (the one with the full count).
func parse(r io.Reader) []*result {
	var out []*result
	index := map[string]*result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		res := &result{name: m[1], metrics: map[string]float64{}}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			res.metrics[f[i+1]] = v
			res.order = append(res.order, f[i+1])
		}
		if old, ok := index[res.name]; ok {
			*old = *res
			continue
		}
		index[res.name] = res
		out = append(out, res)
	}
	return out
}

// title names a figure from its benchmark and metric prefix.
func title(bench, prefix string) string {
	top, sub, _ := strings.Cut(bench, "/")
	param := func(key string) string { return strings.TrimPrefix(sub, key+"=") }
	switch top {
	case "RegistryCallVsBareSDK":
		return "1. mcp call via registry (policy, naming, caps) vs bare SDK session"
	case "RegistryHTTPCallVsBareSDK":
		return "1. mcp call over Streamable HTTP via registry (policy, naming, caps) vs bare SDK session"
	case "ParallelConnect":
		return fmt.Sprintf("2. parallel connect, %s servers with 300 ms handshake vs 1", param("servers"))
	case "ServeInitialize":
		if prefix == "next-" {
			return "3. first request after initialized, 10 slow servers vs none"
		}
		return "3. initialize over stdio, 10 slow servers vs none"
	case "LoopTurnOverhead":
		return fmt.Sprintf("4. agent loop per turn, %s tool turns, vs bare model round trip + bare tool call", param("turns"))
	case "LoopServers":
		return fmt.Sprintf("4. agent loop per turn, 10 tool turns with %s servers connected, vs bare model round trip + bare tool call", param("servers"))
	case "EventLatency":
		if prefix == "p99-" {
			return "5. event latency p99, SSE delta to agent/event, vs direct SSE reader"
		}
		return "5. event latency median, SSE delta to agent/event, vs direct SSE reader"
	case "ServeRSS":
		if sub == "idle" {
			return "6. peak RSS of agentls serve idle vs bare Go process"
		}
		return fmt.Sprintf("6. peak RSS of agentls serve, %s connected, vs idle", strings.Replace(sub, ",tools=", " servers, ", 1)[len("servers="):]+" tools")
	case "ServeRSSHistory":
		return fmt.Sprintf("6. peak RSS of agentls serve after a task of %s tool turns, vs idle", param("turns"))
	case "ACPPromptVsLSPRun":
		return "9. ACP session/prompt round trip vs LSP agent/run, same task (tool call + text)"
	case "PromptCache":
		return fmt.Sprintf("10. billed input tokens of a 30-turn task with the prompt cache vs without, %s wire", param("wire"))
	case "ToolSearch":
		return "11. tool-definition tokens per request, 200 MCP tools, tool search vs all tools"
	case "ParallelCalls":
		return "12. one response with 4 independent 300 ms calls vs one such call"
	case "CompactionTurn":
		return "13. the turn that compacts (elide + model summary) vs the same turn within the window"
	case "ConfinedConnect":
		return fmt.Sprintf("14. parallel connect, %s repository servers confined by the kernel vs the same unconfined (300 ms handshake)", param("servers"))
	case "ConfinedSpawn":
		cmd, via, _ := strings.Cut(param("cmd"), ",launcher=")
		launcher := "agentls-sandbox launcher"
		if via != "" {
			launcher = "fallback: " + via + " re-executed as the launcher"
		}
		if prefix == "cpu-" {
			return fmt.Sprintf("14. CPU time of a spawn confined by the kernel (%s) vs unconfined, %s", launcher, cmd)
		}
		return fmt.Sprintf("14. spawn of a command confined by the kernel (%s) vs unconfined, %s to its exit", launcher, cmd)
	case "SessionsList":
		return "15. agent/sessions, a workspace whose session is 50 MB vs one of 4 short turns (from the index)"
	case "SessionsListRebuild":
		return "15. agent/sessions with the index missing: the 50 MB session read once, line by line, vs the short one"
	case "HugePrompt":
		switch prefix {
		case "alloc-":
			return "16. memory allocated for a 50 MB prompt through agent/run until refused vs a blank prompt"
		case "allocs-":
			return "16. allocations for a 50 MB prompt through agent/run until refused vs a blank prompt"
		}
		return "16. a 50 MB prompt through agent/run until refused (larger than the window) vs a blank prompt"
	case "CancelHugePrompt":
		return "16. agent/cancel while a 50 MB prompt is handled (stored, being redacted) until the task ends, vs cancelling a task that waits on the model"
	case "Redact50MB":
		return "17. redacting 50 MB of log text (a secret every tenth line) vs copying it"
	case "ServeRSSAfterAFlood":
		return "18. RSS of agentls serve idle after 2000 agent/runs at once (each a new session), vs before them"
	case "Peers":
		agent, what, _ := strings.Cut(param("agent"), "/")
		switch {
		case what == "bytes" && prefix == "body-":
			return "19. the whole first model request with server-everything connected, " + agent + " vs the bare loop"
		case what == "bytes":
			return "19. tool definitions in the first model request with server-everything connected, " + agent + " vs the bare loop (its tools as the server lists them: the floor)"
		case what == "turn" && prefix == "cpu-":
			return "19. CPU time a tool turn adds (user + system of the process tree, MCP server included; (21 calls - 1) / 20), " + agent + " vs the bare loop"
		case what == "turn":
			return "19. time a tool turn adds ((21 calls - 1) / 20), " + agent + " vs the bare loop"
		case what == "instr" && prefix == "task-":
			return "19. instructions of a one-call task in the agent's own process (valgrind), " + agent + " vs the bare loop"
		case what == "instr":
			return "19. instructions a tool turn adds in the agent's own process (valgrind; (21 calls - 1) / 20), " + agent + " vs the bare loop"
		}
		return fmt.Sprintf("19. peak RSS of %s's processes (the MCP servers not counted), %s servers, a one-call task, vs the bare loop", agent, strings.TrimPrefix(what, "rss,servers="))
	case "SchemaTokens":
		return fmt.Sprintf("7. tool schema tokens per turn, server %s, vs its own listing", param("server"))
	}
	name := bench
	if prefix != "" {
		name += " " + strings.TrimSuffix(prefix, "-")
	}
	return name
}

// goal says whether a figure meets the goal it is held to; "" for none.
func goal(bench, prefix string, m map[string]float64, v, ratio float64) string {
	verdict := func(ok bool, text string) string {
		if ok {
			return "goal " + text + ": met"
		}
		return "goal " + text + ": MISSED"
	}
	switch {
	case bench == "RegistryCallVsBareSDK/calls", bench == "RegistryHTTPCallVsBareSDK/calls":
		return verdict(ratio <= 1.10 || m["added-µs"] < 50, "ratio ≤ 1.10 or < 50 µs added")
	case bench == "ParallelConnect/servers=10":
		return verdict(ratio <= 1.3, "ratio ≤ 1.3")
	case bench == "ServeInitialize/servers=10" && prefix == "":
		return verdict(ratio <= 1.2, "ratio ≤ 1.2")
	case strings.HasPrefix(bench, "LoopTurnOverhead/"), strings.HasPrefix(bench, "LoopServers/"):
		return verdict(m["added-µs"] < 1000, "< 1 ms added per turn")
	case bench == "ACPPromptVsLSPRun/prompt":
		return verdict(ratio <= 1.1, "ratio ≤ 1.1")
	case strings.HasPrefix(bench, "PromptCache/"):
		return verdict(ratio <= 0.2, "ratio ≤ 0.2")
	case bench == "ToolSearch":
		return verdict(ratio <= 0.25, "ratio ≤ 0.25")
	case bench == "ParallelCalls":
		return verdict(ratio <= 1.3, "ratio ≤ 1.3")
	case bench == "ConfinedSpawn/cmd=git-status" && prefix == "", bench == "ConfinedConnect/servers=10":
		return verdict(ratio <= 1.2, "ratio ≤ 1.2")
	case bench == "SessionsList":
		return verdict(ratio <= 2, "ratio ≤ 2")
	case bench == "HugePrompt" && prefix == "":
		return verdict(ratio <= 2, "ratio ≤ 2 (time does not grow with the prompt)")
	case bench == "HugePrompt" && prefix == "alloc-":
		return verdict(v < 1024, "< 1024 KB (the prompt is never copied)")
	case bench == "CancelHugePrompt" && prefix == "cancel-":
		return verdict(v < 50000, "< 50 ms")
	case bench == "ServeRSSAfterAFlood":
		return verdict(m["kept-share"] <= 0.25, "kept-share ≤ 0.25 (what the flood added is given back once idle)")
	case bench == "Peers/agent=agentls/bytes" && prefix == "tools-":
		return verdict(ratio <= 1.5, "ratio ≤ 1.5")
	case bench == "ServeRSS/idle":
		return verdict(v < 30, "< 30 MB")
	case bench == "ServeRSS/servers=10,tools=500":
		return verdict(v < 60, "< 60 MB")
	}
	return ""
}

func num(v float64) string {
	switch a := v; {
	case a >= 100 || a <= -100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10 || a <= -10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// figures prints one line per subject/baseline pair of every result,
// ordered by figure number (a benchmark's main pair before its others),
// each benchmark's extra metrics on a line below its figures.
func figures(w io.Writer, results []*result) {
	type entry struct {
		fig  int
		text string
	}
	var lines []entry
	for _, r := range results {
		used := map[string]bool{"ns/op": true}
		var main, others []string
		fig := 99
		for _, u := range r.order {
			if !strings.HasPrefix(u, "base-") {
				continue
			}
			subj := strings.TrimPrefix(u, "base-")
			v, ok := r.metrics[subj]
			if !ok {
				continue
			}
			// The unit is what follows the prefix: "p99-µs" is µs with prefix "p99-".
			prefix, unit := "", subj
			if i := strings.LastIndex(subj, "-"); i >= 0 {
				prefix, unit = subj[:i+1], subj[i+1:]
			}
			ratio := r.metrics[prefix+"ratio"]
			used[u], used[subj], used[prefix+"ratio"] = true, true, true
			name := title(r.name, prefix)
			line := fmt.Sprintf("%s: %s %s (baseline: %s %s, ratio: %s)", name, num(v), unit, num(r.metrics[u]), unit, strconv.FormatFloat(ratio, 'f', 2, 64))
			if a, ok := r.metrics[prefix+"added-"+unit]; ok {
				line += fmt.Sprintf(", %s %s added", num(a), unit)
				used[prefix+"added-"+unit] = true
			}
			if g := goal(r.name, prefix, r.metrics, v, ratio); g != "" {
				line += "; " + g
			}
			if n, err := strconv.Atoi(strings.SplitN(name, ".", 2)[0]); err == nil {
				fig = n
			}
			if prefix == "" {
				main = append(main, line)
			} else {
				others = append(others, line)
			}
		}
		var extra []string
		for _, u := range r.order {
			if !used[u] && !strings.HasSuffix(u, "/op") {
				extra = append(extra, num(r.metrics[u])+" "+u)
			}
		}
		if len(extra) > 0 {
			others = append(others, fmt.Sprintf("   (%s: %s)", r.name, strings.Join(extra, ", ")))
		}
		for _, l := range append(main, others...) {
			lines = append(lines, entry{fig, l})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].fig < lines[j].fig })
	for _, l := range lines {
		fmt.Fprintln(w, l.text)
	}
}

// growth is figure 8: how a figure moves from the smallest size to the
// largest. A per-unit cost (per server, per turn) that stays flat means the
// total grows linearly; a total that grows slower than the size is better
// than linear. Sizes below from are listed but left out of the verdict:
// they carry fixed costs (a task's own start, the first server's code).
// Within 1.5x counts as flat: the noise of a shared machine.
func growth(w io.Writer, results []*result) {
	series := []struct {
		what, top, key, per string
		perUnit             bool
		from                float64
		value               func(m map[string]float64, n float64) float64
	}{
		{"parallel connect (ms per server beyond the first)", "ParallelConnect", "servers", "servers", true, 1,
			func(m map[string]float64, _ float64) float64 { return m["ms-per-extra-server"] }},
		{"agent loop over history (µs added per turn)", "LoopTurnOverhead", "turns", "turns", true, 10,
			func(m map[string]float64, _ float64) float64 { return m["added-µs"] }},
		{"agent loop over servers connected (µs added per turn)", "LoopServers", "servers", "servers", false, 1,
			func(m map[string]float64, _ float64) float64 { return m["added-µs"] }},
		{"peak RSS (MB per server above idle)", "ServeRSS", "servers", "servers", true, 10,
			func(m map[string]float64, n float64) float64 { return (m["MB"] - m["base-MB"]) / n }},
		{"peak RSS over history (KB per turn above idle)", "ServeRSSHistory", "turns", "turns", true, 10,
			func(m map[string]float64, n float64) float64 { return (m["MB"] - m["base-MB"]) * 1024 / n }},
	}
	for _, s := range series {
		type point struct{ n, v float64 }
		var pts []point
		for _, r := range results {
			top, sub, _ := strings.Cut(r.name, "/")
			if top != s.top || !strings.HasPrefix(sub, s.key+"=") {
				continue
			}
			ns := strings.TrimPrefix(sub, s.key+"=")
			ns, _, _ = strings.Cut(ns, ",")
			n, err := strconv.ParseFloat(ns, 64)
			if err != nil || n == 0 {
				continue
			}
			pts = append(pts, point{n, s.value(r.metrics, n)})
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].n < pts[j].n })
		var parts []string
		var judged []point
		for _, p := range pts {
			parts = append(parts, fmt.Sprintf("%s at %s %s", num(p.v), strconv.FormatFloat(p.n, 'f', -1, 64), s.per))
			if p.n >= s.from {
				judged = append(judged, p)
			}
		}
		if len(judged) < 2 {
			continue
		}
		first, last := judged[0], judged[len(judged)-1]
		verdict := "linear"
		if s.perUnit {
			switch {
			case last.v > 1.5*first.v && last.v > 0:
				verdict = "worse than linear"
			case last.v < first.v/1.5:
				verdict = "better than linear"
			}
		} else {
			switch grow := last.v / first.v; {
			case first.v <= 0:
				verdict = "flat"
			case grow <= 1.5:
				verdict = "flat (better than linear)"
			case grow < last.n/first.n/1.5:
				verdict = "better than linear"
			case grow > 1.5*last.n/first.n:
				verdict = "worse than linear"
			}
		}
		if s.from > pts[0].n {
			verdict += fmt.Sprintf(" (judged from %s %s)", strconv.FormatFloat(s.from, 'f', -1, 64), s.per)
		}
		fmt.Fprintf(w, "8. scaling, %s: %s: %s\n", s.what, strings.Join(parts, ", "), verdict)
	}
}

func main() {
	results := parse(os.Stdin)
	if len(results) == 0 {
		fmt.Fprintln(os.Stderr, "report: no benchmark lines on stdin (expected `go test -bench` output)")
		os.Exit(1)
	}
	figures(os.Stdout, results)
	growth(os.Stdout, results)
}
