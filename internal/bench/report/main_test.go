package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkRegistryCallVsBareSDK/calls-2   	     300	   1302208 ns/op	        33.98 added-µs	       329.0 base-µs	         1.103 ratio	       363.0 µs
BenchmarkRegistryHTTPCallVsBareSDK/calls-2         	    5000	    948790 ns/op	        17.33 added-µs	       217.8 base-µs	         1.080 ratio	       235.1 µs
BenchmarkParallelConnect/servers=10-2    	       1	 697604441 ns/op	       300.0 base-ms	       900.0 ms	         5.7 ms-per-extra-server	         3.0 ratio
BenchmarkParallelConnect/servers=10-2    	       3	 697604441 ns/op	       313.7 base-ms	       365.3 ms	         5.741 ms-per-extra-server	         1.165 ratio
BenchmarkParallelConnect/servers=100-2   	       3	2159132925 ns/op	       310.5 base-ms	      1766 ms	        14.70 ms-per-extra-server	         5.687 ratio
BenchmarkEventLatency/deltas-2           	      10	 286732312 ns/op	        20.02 added-µs	        43.11 base-p99-µs	        14.55 base-µs	       500.0 deltas	        22.52 p99-ratio	       970.7 p99-µs	         2.377 ratio	        34.57 µs
BenchmarkServeRSS/idle-2                 	       3	 414929398 ns/op	        31.57 MB	         8.398 base-MB	         3.759 ratio
BenchmarkLoopTurnOverhead/turns=1-2      	       3	  13381447 ns/op	       500 added-µs	      1052 base-µs	         1.475 ratio	      1552 µs
BenchmarkLoopTurnOverhead/turns=10-2     	       3	  13381447 ns/op	       900 added-µs	      1052 base-µs	         1.475 ratio	      1952 µs
BenchmarkLoopServers/servers=1-2         	       3	  41173761 ns/op	       235.3 added-µs	      1326 base-µs	         1.178 ratio	        21.00 tools	      1561 µs
BenchmarkLoopServers/servers=100-2       	       3	 224756143 ns/op	      1293 added-µs	      6352 base-µs	         1.204 ratio	      1209 tools	      7645 µs
BenchmarkLoopTurnOverhead/turns=200-2    	       3	1279815393 ns/op	       226.7 added-µs	      2563 base-µs	         1.088 ratio	      2790 µs
BenchmarkConfinedSpawn/cmd=git-status-2 	     100	 227430022 ns/op	    1000 added-µs	     4000 base-µs	         1.250 ratio	    5000 µs
BenchmarkConfinedConnect/servers=10-2   	       3	 697604441 ns/op	       330.0 base-ms	       340.0 ms	         1.030 ratio
BenchmarkPeers/agent=agentls/turn-2         	       3	 363164570 ns/op	      2521 added-µs	      3371 base-µs	         1.748 ratio	      5892 µs	       450.0 cpu-added-µs	      1500 base-cpu-µs	         1.300 cpu-ratio	      1950 cpu-µs
BenchmarkPeers/agent=agentls/instr-2         	       1	7053393877 ns/op	         1.610 Minstr	         0.7688 added-Minstr	         0.8410 base-Minstr	         7.237 base-task-Minstr	         1.914 ratio	        24.53 task-Minstr	         3.389 task-ratio
PASS
`

func TestReportLines(t *testing.T) {
	var out bytes.Buffer
	results := parse(strings.NewReader(sample))
	figures(&out, results)
	growth(&out, results)
	got := out.String()
	for _, want := range []string{
		"1. mcp call via registry (policy, naming, caps) vs bare SDK session: 363 µs (baseline: 329 µs, ratio: 1.10), 34.0 µs added; goal ratio ≤ 1.10 or < 50 µs added: met\n",
		"1. mcp call over Streamable HTTP via registry (policy, naming, caps) vs bare SDK session: 235 µs (baseline: 218 µs, ratio: 1.08), 17.3 µs added; goal ratio ≤ 1.10 or < 50 µs added: met\n",
		// The second line of a benchmark that ran twice (b.N = 1, then the count) wins.
		"2. parallel connect, 10 servers with 300 ms handshake vs 1: 365 ms (baseline: 314 ms, ratio: 1.17); goal ratio ≤ 1.3: met\n",
		"5. event latency median, SSE delta to agent/event, vs direct SSE reader: 34.6 µs (baseline: 14.6 µs, ratio: 2.38), 20.0 µs added\n",
		"5. event latency p99, SSE delta to agent/event, vs direct SSE reader: 971 µs (baseline: 43.1 µs, ratio: 22.52)\n",
		"6. peak RSS of agentls serve idle vs bare Go process: 31.6 MB (baseline: 8.40 MB, ratio: 3.76); goal < 30 MB: MISSED\n",
		"(EventLatency/deltas: 500 deltas)",
		"14. spawn of a command confined by the kernel (agentls-sandbox launcher) vs unconfined, git-status to its exit: 5000 µs (baseline: 4000 µs, ratio: 1.25), 1000 µs added; goal ratio ≤ 1.2: MISSED\n",
		"14. parallel connect, 10 repository servers confined by the kernel vs the same unconfined (300 ms handshake): 340 ms (baseline: 330 ms, ratio: 1.03); goal ratio ≤ 1.2: met\n",
		"19. time a tool turn adds ((21 calls - 1) / 20), agentls vs the bare loop: 5892 µs (baseline: 3371 µs, ratio: 1.75), 2521 µs added\n19. CPU time a tool turn adds (user + system of the process tree, MCP server included; (21 calls - 1) / 20), agentls vs the bare loop: 1950 µs (baseline: 1500 µs, ratio: 1.30), 450 µs added\n",
		"19. instructions a tool turn adds in the agent's own process (valgrind; (21 calls - 1) / 20), agentls vs the bare loop: 1.61 Minstr (baseline: 0.84 Minstr, ratio: 1.91), 0.77 Minstr added\n19. instructions of a one-call task in the agent's own process (valgrind), agentls vs the bare loop: 24.5 Minstr (baseline: 7.24 Minstr, ratio: 3.39)\n",
		"8. scaling, parallel connect (ms per server beyond the first): 5.74 at 10 servers, 14.7 at 100 servers: worse than linear\n",
		"8. scaling, agent loop over history (µs added per turn): 500 at 1 turns, 900 at 10 turns, 227 at 200 turns: better than linear (judged from 10 turns)\n",
		"8. scaling, agent loop over servers connected (µs added per turn): 235 at 1 servers, 1293 at 100 servers: better than linear\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q; got:\n%s", want, got)
		}
	}
	median := strings.Index(got, "5. event latency median")
	if p99 := strings.Index(got, "5. event latency p99"); median < 0 || p99 < median {
		t.Errorf("a benchmark's main figure must come before its others; got:\n%s", got)
	}
	if first, four := strings.Index(got, "1. "), strings.Index(got, "4. "); first < 0 || four < first || strings.Index(got, "2. ") > four {
		t.Errorf("figures must be ordered by number; got:\n%s", got)
	}
	if n := strings.Count(got, "2. parallel connect, 10 servers"); n != 1 {
		t.Errorf("servers=10 reported %d times, want once", n)
	}
}

func TestNoBenchmarkLines(t *testing.T) {
	if got := parse(strings.NewReader("PASS\nok  \tgithub.com/agentls/agentls/mcp\t1.2s\n")); len(got) != 0 {
		t.Errorf("parsed %d results from output without benchmark lines", len(got))
	}
}
