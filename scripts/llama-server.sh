#!/usr/bin/env bash
# A real llama.cpp llama-server for agentls's tests against a local OpenAI-compatible server.
#
# llama.cpp's source comes from the npm package node-llama-cpp, which ships it as a git
# bundle; cmake from apt builds llama-server from it (once: about 10 minutes on 2 cores).
# The model is a tiny GGUF with random weights made by scripts/llama-tiny-model.py from
# llama.cpp's own Qwen2 vocabulary and Qwen2.5 chat template: the HTTP wire, the chat
# template, the tool-call grammar and the errors are llama.cpp's own, only the words are noise.
#
# Usage:
#   scripts/llama-server.sh build          build llama-server and the model (cached)
#   scripts/llama-server.sh start [PORT]   start it on 127.0.0.1 (default port 0: a free one),
#                                          print its base URL (http://127.0.0.1:PORT/v1)
#   scripts/llama-server.sh stop           stop the server start started
#   scripts/llama-server.sh path           print the llama-server binary and the model
# Environment: AGENTLS_LLAMA (cache folder, default ~/.cache/agentls-llama), LLAMA_JOBS
# (build jobs, default 2), LLAMA_CTX (context window, default 4096).
# Tests find the binary through AGENTLS_LLAMA_SERVER and the model through AGENTLS_LLAMA_MODEL
# or, without them, in the cache folder.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${AGENTLS_LLAMA:-${XDG_CACHE_HOME:-$HOME/.cache}/agentls-llama}
version=3.21.1 # node-llama-cpp, which carries llama.cpp's source
jobs=${LLAMA_JOBS:-2}
src=$cache/llama.cpp-$version
bin=$cache/bin/llama-server
model=$cache/tiny-qwen2.gguf

say() { echo "llama-server.sh: $*" >&2; }

apt_install() { # apt_install PACKAGE...
  if [[ $(id -u) != 0 ]]; then
    say "please install $* (sudo apt-get install $*)"
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

build_server() {
  [[ -x $bin ]] && return 0
  command -v cmake >/dev/null || apt_install cmake
  for tool in g++ git npm; do
    command -v "$tool" >/dev/null || { say "needs $tool"; exit 1; }
  done
  mkdir -p "$cache/pack" "$cache/bin"
  if [[ ! -d $src/.git ]]; then
    local tgz=$cache/pack/node-llama-cpp-$version.tgz
    if [[ ! -f $tgz ]]; then
      say "fetching node-llama-cpp $version from npm (it carries llama.cpp's source)"
      (cd "$cache/pack" && npm pack --silent "node-llama-cpp@$version" >/dev/null)
    fi
    tar -xzf "$tgz" -C "$cache/pack" package/llama/gitRelease.bundle
    rm -rf "$src.tmp"
    git -c advice.detachedHead=false clone -q "$cache/pack/package/llama/gitRelease.bundle" "$src.tmp"
    mv "$src.tmp" "$src"
    rm -rf "$cache/pack/package"
  fi
  say "building llama-server with $jobs jobs (once; about 10 minutes on 2 cores)"
  cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DGGML_NATIVE=OFF >"$cache/cmake.log" 2>&1 ||
    { tail -30 "$cache/cmake.log" >&2; exit 1; }
  cmake --build "$src/build" --target llama-server -j"$jobs" >"$cache/build.log" 2>&1 ||
    { tail -30 "$cache/build.log" >&2; exit 1; }
  cp "$src/build/bin/llama-server" "$bin.tmp"
  mv "$bin.tmp" "$bin"
}

build_model() {
  [[ -f $model ]] && return 0
  local py=/usr/bin/python3
  [[ -x $py ]] || py=$(command -v python3)
  "$py" -c 'import numpy' 2>/dev/null || apt_install python3-numpy
  "$py" "$here/llama-tiny-model.py" "$src" "$model.tmp"
  mv "$model.tmp" "$model"
}

case ${1:-build} in
build)
  build_server
  build_model
  echo "$bin"
  ;;
path)
  echo "$bin"
  echo "$model"
  ;;
start)
  build_server
  build_model
  port=${2:-0}
  if [[ $port == 0 ]]; then
    port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  fi
  "$bin" -m "$model" --host 127.0.0.1 --port "$port" --jinja -c "${LLAMA_CTX:-4096}" -t 1 -np 1 \
    --no-webui >"$cache/server.log" 2>&1 &
  echo $! >"$cache/server.pid"
  for _ in $(seq 1 600); do
    if curl -fsS -m 2 "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
      echo "http://127.0.0.1:$port/v1"
      exit 0
    fi
    kill -0 "$(cat "$cache/server.pid")" 2>/dev/null || { tail -20 "$cache/server.log" >&2; exit 1; }
    sleep 0.5
  done
  say "not ready after 300 s"
  exit 1
  ;;
stop)
  if [[ -f $cache/server.pid ]]; then
    kill "$(cat "$cache/server.pid")" 2>/dev/null || true
    rm -f "$cache/server.pid"
  fi
  ;;
*)
  echo "usage: $0 build|start [PORT]|stop|path" >&2
  exit 2
  ;;
esac
