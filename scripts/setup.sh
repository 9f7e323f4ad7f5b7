#!/usr/bin/env bash
# Sets up everything agentls and its tests need, on a Debian machine with Go
# and Node.js: Go modules, the agentls binary (go install), the pinned npm
# packages the tests use (real MCP reference servers, LSP client libraries,
# the VS Code extension's dependencies), and the real editors the end-to-end
# tests drive (Neovim 0.7.2 and tmux from apt, Neovim 0.10 and Helix 25.01
# unpacked into ~/.cache/agentls-editors), and for the browser suite Debian's
# chromium and ripgrep with code-server 4.100.3 and playwright-core
# (clients/vscode/e2e/install.sh), and llama.cpp's real llama-server built
# from the source npm's node-llama-cpp carries (scripts/llama-server.sh;
# about 10 minutes the first time, cached after).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Go modules and the agentls binary"
go mod download
go install ./cmd/agentls ./cmd/agentls-sandbox   # agentls and its launcher of confined programs, side by side
go install honnef.co/go/tools/cmd/staticcheck@v0.7.0   # release 2026.1; the linter scripts/test.sh runs
echo "   installed $(command -v agentls || echo "$(go env GOPATH)/bin/agentls (add $(go env GOPATH)/bin to PATH)")"

echo "== npm packages (pinned by lockfiles)"
(cd tools/node && npm ci --no-audit --no-fund --loglevel=error)
if [[ -f clients/vscode/package-lock.json ]]; then
  (cd clients/vscode && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "== editors for the end-to-end tests"
scripts/fetch-editors.sh

echo "== llama.cpp's llama-server and its tiny model, for the local-server tests (built once into ~/.cache/agentls-llama)"
scripts/llama-server.sh build >/dev/null

echo "== the browser end-to-end suite: chromium and ripgrep (apt), code-server and playwright-core (npm)"
clients/vscode/e2e/install.sh
