#!/usr/bin/env bash
# Installs what the browser end-to-end suite needs: Debian's chromium,
# ripgrep and libkrb5-dev (apt), and code-server and playwright-core from npm, pinned by
# package-lock.json (code-server 4.100.3 bundles VS Code 1.100.3 and runs on
# Node.js 20). Nothing is downloaded from outside the registries: VS Code's
# @vscode/ripgrep fetches its rg from GitHub in its postinstall, so its
# download cache is seeded with Debian's rg first.
set -euo pipefail
cd "$(dirname "$0")"

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v rg >/dev/null || need_apt+=(ripgrep)
# VS Code's native modules are built here: kerberos needs the GSSAPI headers,
# every module a compiler, make and python3 (node-gyp).
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v g++ >/dev/null || need_apt+=(g++)
command -v make >/dev/null || need_apt+=(make)
command -v python3 >/dev/null || need_apt+=(python3)
if ((${#need_apt[@]})); then
  if [[ $(id -u) != 0 ]]; then
    echo "e2e/install.sh: please install ${need_apt[*]} (sudo apt-get install ${need_apt[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Already installed as package-lock.json pins it: nothing to do (npm ci
# would rebuild VS Code's native modules, minutes on a small machine).
if [[ -f node_modules/.package-lock.json && -x node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg ]] &&
  node -e 'const a = require("./package-lock.json").packages, b = require("./node_modules/.package-lock.json").packages;
    for (const k of Object.keys(a)) if (k && (!b[k] || b[k].version !== a[k].version)) process.exit(1);'; then
  echo "e2e: code-server $(node -p 'require("code-server/package.json").version') and playwright-core $(node -p 'require("playwright-core/package.json").version') are installed already"
  exit 0
fi

# code-server 4.100.3's lib/vscode/npm-shrinkwrap.json pins @vscode/ripgrep
# 1.15.11, which wants ripgrep-v13.0.0-10-<target>.tar.gz in
# $TMPDIR/vscode-ripgrep-cache-1.15.11 (its lib/download.js).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/vscode-ripgrep-cache-1.15.11
mkdir -p "$cache/rg"
cp "$(command -v rg)" "$cache/rg/rg"
case $(uname -m) in
  x86_64) target=x86_64-unknown-linux-musl ;;
  aarch64) target=aarch64-unknown-linux-musl ;;
  *) echo "e2e/install.sh: no ripgrep target for $(uname -m)" >&2; exit 1 ;;
esac
tar -czf "$cache/ripgrep-v13.0.0-10-$target.tar.gz" -C "$cache/rg" rg

# node-gyp builds against the installed Node's headers (Debian's nodejs
# ships them in /usr/include/node), never headers fetched from nodejs.org,
# which a machine limited to the registries cannot reach. argon2's prebuilt
# binary comes from GitHub, so it is built here too.
nodedir=$(dirname "$(dirname "$(command -v node)")")
if [[ ! -f $nodedir/include/node/node.h ]]; then
  if [[ -f /usr/include/node/node.h ]]; then
    nodedir=/usr
  else
    echo "e2e/install.sh: no Node.js headers in $nodedir/include/node or /usr/include/node (Debian: apt-get install libnode-dev)" >&2
    exit 1
  fi
fi
export npm_config_nodedir=$nodedir

# As root, npm runs code-server's postinstall (which builds VS Code's native
# modules) only with unsafe_perm.
TMPDIR=$tmp npm_config_unsafe_perm=true npm_config_yes=true \
  npm ci --no-audit --no-fund --loglevel=error
test -x node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg
echo "e2e: code-server $(node -p 'require("code-server/package.json").version'), playwright-core $(node -p 'require("playwright-core/package.json").version'), $(chromium --version)"
