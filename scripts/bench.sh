#!/usr/bin/env bash
# Runs agentls's benchmarks and prints one line per figure:
#   name: value (baseline: value, ratio: x)
# Every baseline is measured in the same run as its subject, interleaved, so
# the ratios hold on a busy shared machine where absolute times do not.
#
#   scripts/bench.sh           all figures (about 2 minutes on 2 cores)
#   scripts/bench.sh --quick   fewer rounds, no large scaling points (about 30 seconds)
#
# Needs what scripts/test.sh needs (Go, and Node with tools/node for the
# reference servers). The raw `go test -bench` output is kept in a file
# named at the end. The benchmarks live beside the code they measure:
# mcp/registry_bench_test.go, agent/loop_bench_test.go, internal/bench/
# (figure 9, ACP vs LSP, in internal/bench/measure_acp_test.go; figures 10-13,
# long sessions, in agent/loop_long_bench_test.go; figure 14, confinement, in
# internal/sandbox/bench_test.go and mcp/registry_bench_test.go; figures
# 15-16, huge sessions and prompts, in agent/core_huge_bench_test.go; figure 17,
# redaction, in trust/redact_linear_test.go; figure 18, memory given back after
# a flood of tasks, in internal/bench/measure_serve_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: scripts/bench.sh [--quick]" >&2; exit 2 ;;
esac

raw="$(mktemp -t agentls-bench.XXXXXX)"
run() { # run PACKAGE REGEXP BENCHTIME
	echo "bench: $1 $2 ($3)" >&2
	go test -run '^$' -bench "$2" -benchtime "$3" -timeout 20m "$1" >>"$raw" 2>&1 || {
		tail -n 40 "$raw" >&2
		echo "bench: $1 failed; full output in $raw" >&2
		exit 1
	}
}

if [ "$quick" = 1 ]; then
	run ./mcp 'Registry(HTTP)?CallVsBareSDK|SchemaTokens' 300x
	run ./mcp 'ParallelConnect$/servers=10$' 3x
	run ./agent 'LoopTurnOverhead/turns=(1|10)$' 2s
	run ./internal/bench 'ServeInitialize' 5x
	run ./internal/bench 'ServeRSS$/(idle|servers=(1|10),)' 1x
	run ./internal/bench 'ServeRSSAfterAFlood' 1x
	run ./internal/bench 'EventLatency' 5x
	run ./internal/bench 'ACPPromptVsLSPRun' 20x
	run ./agent 'PromptCache|ToolSearch' 1x
	run ./agent 'ParallelCalls|CompactionTurn' 3x
	run ./internal/sandbox 'ConfinedSpawn' 30x
	run ./mcp 'ConfinedConnect' 3x
	run ./agent '^Benchmark(SessionsList|HugePrompt|CancelHugePrompt)$' 3x
	run ./trust 'Redact50MB' 1x
else
	run ./mcp 'Registry(HTTP)?CallVsBareSDK|SchemaTokens' 5000x
	run ./mcp 'ParallelConnect$' 8x
	# Short tasks need many rounds to beat the noise, long ones few.
	run ./agent 'LoopTurnOverhead/turns=(1|10|50)$' 5s
	run ./agent 'LoopTurnOverhead/turns=200$' 4x
	run ./agent 'LoopServers' 6x
	run ./internal/bench 'ServeInitialize' 30x
	run ./internal/bench 'ServeRSS(History)?$' 3x
	run ./internal/bench 'ServeRSSAfterAFlood' 2x
	run ./internal/bench 'EventLatency' 40x
	run ./internal/bench 'ACPPromptVsLSPRun' 200x
	run ./agent 'PromptCache|ToolSearch' 2x
	run ./agent 'ParallelCalls|CompactionTurn' 15x
	run ./internal/sandbox 'ConfinedSpawn' 200x
	run ./mcp 'ConfinedConnect' 8x
	run ./agent '^Benchmark(SessionsList|SessionsListRebuild|HugePrompt)$' 20x
	run ./agent 'CancelHugePrompt' 5x
	run ./trust 'Redact50MB' 5x
fi

go run ./internal/bench/report <"$raw"
echo "bench: raw output in $raw ($(nproc) cores, $(date -u +%Y-%m-%d))" >&2
