#!/usr/bin/env bash
# Fetches the real editors agentls's end-to-end tests drive:
#   nvim            Neovim 0.7.2, Debian 12's own package (installed with apt-get)
#   tmux            to drive Helix (installed with apt-get)
#   DEST/bin/nvim-0.10, DEST/bin/hx   Neovim 0.10 and Helix 25.01 from Debian's
#                   next suite, unpacked into DEST (nothing installed system-wide)
#   DEST/bin/nvim-0.12  Neovim 0.12 from Debian unstable (sid), unpacked into
#                   DEST/root-sid: CodeCompanion.nvim, an ACP client the tests
#                   drive, needs Neovim 0.11 or later, which no stable suite has
# Usage: scripts/fetch-editors.sh [DEST]
#   DEST defaults to $AGENTLS_EDITORS, else ~/.cache/agentls-editors.
# Prints DEST/bin last. Running it again reuses what is there.
set -euo pipefail
dest=${1:-${AGENTLS_EDITORS:-$HOME/.cache/agentls-editors}}
mkdir -p "$dest/bin"

need_apt=()
command -v nvim >/dev/null || need_apt+=(neovim)
command -v tmux >/dev/null || need_apt+=(tmux)
if ((${#need_apt[@]})); then
  if [[ $(id -u) != 0 ]]; then
    echo "fetch-editors: please install ${need_apt[*]} (sudo apt-get install ${need_apt[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [[ -x $dest/bin/hx && -x $dest/bin/nvim-0.10 && -x $dest/bin/nvim-0.12 ]]; then
  echo "$dest/bin"
  exit 0
fi

# Use the machine's own Debian mirror, pointed at the next suite, with a
# private apt state so the system's package lists stay untouched.
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n $mirror ]] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[[ -n $mirror ]] || { echo "fetch-editors: no Debian mirror found in /etc/apt" >&2; exit 1; }

# unpack SUITE STATE ROOT PACKAGE...: download the packages of SUITE with a
# private apt state and unpack them into ROOT.
unpack() {
  local suite=$1 st=$2 root=$3
  shift 3
  mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$st/etc" "$st/debs" "$root"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$st/etc/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$st/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$st/lists" -o "Dir::Cache=$st/cache" -o Debug::NoLocking=1
    -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq
  (cd "$st/debs" && apt-get "${opts[@]}" download "$@" >/dev/null)
  for deb in "$st"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
}

if [[ ! -x $dest/bin/nvim-0.12 ]]; then
  sid=$dest/root-sid
  unpack sid "$dest/apt-sid" "$sid" neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 \
    libluajit-5.1-common libtree-sitter0.26 libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv \
    libmsgpack-c2 libvterm0
  # Its Tree-sitter parsers (markdown, lua, ...) are in usr/lib/nvim, on
  # the 'runtimepath' of an installed Neovim only.
  cat >"$dest/bin/nvim-0.12" <<WRAP
#!/bin/sh
export VIMRUNTIME=$sid/usr/share/nvim/runtime
exec $sid/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path $sid/usr/lib/x86_64-linux-gnu:$sid/lib/x86_64-linux-gnu:$sid/usr/lib/x86_64-linux-gnu/lua/5.1 $sid/usr/bin/nvim --cmd "set rtp+=$sid/usr/lib/nvim" "\$@"
WRAP
  chmod +x "$dest/bin/nvim-0.12"
  "$dest/bin/nvim-0.12" --version | head -1 >&2
fi
if [[ -x $dest/bin/hx && -x $dest/bin/nvim-0.10 ]]; then
  echo "$dest/bin"
  exit 0
fi

state=$dest/apt
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/etc"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$state/etc/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$state/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1
  -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update -qq
packages=(hx neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common
  libmsgpack-c2 libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)
mkdir -p "$dest/debs" "$dest/root"
(cd "$dest/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}" >/dev/null)
for deb in "$dest"/debs/*.deb; do dpkg-deb -x "$deb" "$dest/root"; done

root=$dest/root
loader=$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[[ -e $loader ]] || loader=$root/lib64/ld-linux-x86-64.so.2
libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu
nvim_bin=$root/usr/bin/nvim
[[ -e $nvim_bin ]] || nvim_bin=$(ls "$root"/usr/lib/nvim*/nvim 2>/dev/null | head -1)

# The newer editors need the newer libc: run them through the unpacked loader.
cat >"$dest/bin/hx" <<WRAP
#!/bin/sh
export HELIX_RUNTIME=$root/usr/lib/hx/runtime
exec $loader --library-path $libs $root/usr/lib/hx/hx "\$@"
WRAP
cat >"$dest/bin/nvim-0.10" <<WRAP
#!/bin/sh
export VIMRUNTIME=$root/usr/share/nvim/runtime
exec $loader --library-path $libs:$root/usr/lib/x86_64-linux-gnu/lua/5.1 $nvim_bin "\$@"
WRAP
chmod +x "$dest/bin/hx" "$dest/bin/nvim-0.10"
"$dest/bin/hx" --version >&2
"$dest/bin/nvim-0.10" --version | head -1 >&2
echo "$dest/bin"
