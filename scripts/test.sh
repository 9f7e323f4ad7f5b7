#!/usr/bin/env bash
# Runs every check agentls has: gofmt, go vet, staticcheck, the Go tests under the race
# detector (unit tests, real MCP servers, real editors end to end), and the
# VS Code extension's tests. Run scripts/setup.sh once first.
# With CI=true a missing tool fails the tests instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
export AGENTLS_EDITORS=${AGENTLS_EDITORS:-$HOME/.cache/agentls-editors}

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [[ -n $unformatted ]]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
staticcheck=$(command -v staticcheck || echo "$(go env GOPATH)/bin/staticcheck")
if [[ -x $staticcheck ]]; then
  "$staticcheck" ./...
elif [[ ${CI:-} == true ]]; then
  echo "staticcheck is missing (CI=true): run scripts/setup.sh"; exit 1
else
  echo "skipping staticcheck: not installed (scripts/setup.sh installs it)"
fi
go test -race -timeout 40m ./...
if [[ -f clients/vscode/package.json ]]; then
  (cd clients/vscode && npm test)
fi
