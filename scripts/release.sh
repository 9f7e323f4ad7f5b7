#!/usr/bin/env bash
# Builds the release binaries of agentls for linux/amd64, linux/arm64,
# darwin/amd64, darwin/arm64 and windows/amd64 (the targets scripts/test.sh
# builds and vets) into dist/, with -trimpath, CGO_ENABLED=0 (static, no C
# toolchain needed) and the version stamped in (`agentls version` prints it),
# and writes dist/SHA256SUMS. The version is `git describe --tags --always
# --dirty` (set VERSION to override). See "Releases" in the README.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${VERSION:-$(git describe --tags --always --dirty)}
targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)

rm -rf dist
mkdir -p dist
for target in "${targets[@]}"; do
  os=${target%/*} arch=${target#*/}
  out=dist/agentls-$os-$arch
  [[ $os == windows ]] && out+=.exe
  GOOS=$os GOARCH=$arch CGO_ENABLED=0 \
    go build -trimpath -ldflags "-X main.version=$version" -o "$out" ./cmd/agentls
  echo "built $out"
  if [[ $os == linux ]]; then
    # The sandbox launcher (Landlock is Linux's): agentls uses it when it
    # sits next to it as agentls-sandbox, from the same build (same flags).
    GOOS=$os GOARCH=$arch CGO_ENABLED=0 \
      go build -trimpath -ldflags "-X main.version=$version" -o "dist/agentls-sandbox-$os-$arch" ./cmd/agentls-sandbox
    echo "built dist/agentls-sandbox-$os-$arch"
  fi
done

# The binary for this machine, if it is one of the targets, must say its version.
host=dist/agentls-$(go env GOHOSTOS)-$(go env GOHOSTARCH)
[[ $(go env GOHOSTOS) == windows ]] && host+=.exe
if [[ -x $host ]]; then
  got=$("$host" version)
  if [[ $got != "agentls $version" ]]; then
    echo "$host version printed '$got', want 'agentls $version'"; exit 1
  fi
  echo "$host version: $got"
fi

cd dist
if command -v sha256sum >/dev/null; then
  sha256sum agentls-* > SHA256SUMS
else
  shasum -a 256 agentls-* > SHA256SUMS # macOS
fi
cat SHA256SUMS
