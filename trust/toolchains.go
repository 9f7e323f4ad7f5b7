package trust

import (
	"os"
	"path/filepath"

	"github.com/agentls/agentls/config"
)

// toolchainRoot is where one version or toolchain manager keeps what its
// programs run: the folder its environment variable names, else a
// default under the home folder, and which parts of it (all of it when
// parts is empty). Only parts that hold programs, libraries and version
// pins are named: a manager's folder that also keeps credentials is
// never granted whole.
type toolchainRoot struct {
	env   string   // the variable naming the root ("" for none)
	home  string   // the default, relative to the home folder
	parts []string // sub-folders or files granted; none: the whole root
}

// toolchainRoots are the install roots a confined program may read and run
// from. A shim on PATH (pyenv's ~/.pyenv/shims/python3) runs the manager's
// own script (~/.pyenv/libexec/pyenv), which runs the real interpreter
// under the root: with only the PATH folder readable the shim fails with
// "Permission denied" (exit 126). None of these holds secrets:
//   - pyenv, rbenv, nvm, asdf, volta, sdkman, bun, deno, the conda
//     distributions: programs, versions, plugins and version pins.
//   - mise: only its data folder (installs, shims); its config
//     (~/.config/mise) can set environment variables, often tokens.
//   - cargo: only ~/.cargo/bin; ~/.cargo also holds credentials.toml (the
//     crates.io token) and config.toml. rustup's ~/.rustup holds
//     toolchains and settings only.
//   - Go: $GOPATH's bin and module cache (pkg/mod, where GOTOOLCHAIN
//     downloads go too) and ~/sdk (golang.org/dl); never $GOPATH/src,
//     which holds your own projects.
//   - uv: its Python installs and tools, never ~/.local/share/uv as a
//     whole (uv auth keeps credentials there); pipx's venvs; ~/.local/bin
//     and ~/.local/lib, where pip --user, pipx and uv tool put programs and
//     packages.
//   - asdf's ~/.tool-versions, which its shims read to pick a version.
var toolchainRoots = []toolchainRoot{
	{env: "PYENV_ROOT", home: ".pyenv"},
	{env: "RBENV_ROOT", home: ".rbenv"},
	{env: "NVM_DIR", home: ".nvm"},
	{env: "ASDF_DATA_DIR", home: ".asdf"},
	{home: ".tool-versions"},
	{env: "MISE_DATA_DIR", home: ".local/share/mise"},
	{env: "VOLTA_HOME", home: ".volta"},
	{env: "SDKMAN_DIR", home: ".sdkman"},
	{env: "BUN_INSTALL", home: ".bun"},
	{env: "DENO_INSTALL", home: ".deno"},
	{home: "miniconda3"}, {home: "anaconda3"}, {home: "miniforge3"},
	{env: "CARGO_HOME", home: ".cargo", parts: []string{"bin"}},
	{env: "RUSTUP_HOME", home: ".rustup"},
	{env: "GOPATH", home: "go", parts: []string{"bin", "pkg/mod"}},
	{home: "sdk"},
	{env: "UV_PYTHON_INSTALL_DIR", home: ".local/share/uv/python"},
	{env: "UV_TOOL_DIR", home: ".local/share/uv/tools"},
	{env: "PIPX_HOME", home: ".local/share/pipx"},
	{home: ".local/pipx"},
	{home: ".local/bin"}, {home: ".local/lib"},
}

// ToolchainDirs lists the toolchain install roots of toolchainRoots that
// exist here, absolute and with their links resolved, secret folders left
// out (a variable naming ~/.ssh as PYENV_ROOT grants nothing).
func ToolchainDirs() []string {
	home, _ := os.UserHomeDir()
	secrets := config.SecretDirs()
	var out []string
	for _, r := range toolchainRoots {
		var roots []string
		if v := os.Getenv(r.env); r.env != "" && v != "" {
			for _, d := range filepath.SplitList(v) { // GOPATH may list several
				if filepath.IsAbs(d) {
					roots = append(roots, d)
				}
			}
		} else if home != "" {
			roots = append(roots, filepath.Join(home, filepath.FromSlash(r.home)))
		}
		for _, root := range roots {
			parts := r.parts
			if len(parts) == 0 {
				parts = []string{""}
			}
			for _, part := range parts {
				p := filepath.Join(root, filepath.FromSlash(part))
				real, err := filepath.EvalSymlinks(p)
				if err != nil {
					continue // not installed here
				}
				if safeGrant(real, home, secrets) != "" || safeGrant(filepath.Clean(p), home, secrets) != "" {
					continue
				}
				out = appendNew(out, real)
			}
		}
	}
	return out
}

// safeGrant says why dir must never be granted to a confined program: the
// root, the home folder or a folder above it (all your files), or a
// folder that is, holds or lies in a secret one. "" when it may be.
func safeGrant(dir, home string, secrets []string) string {
	dir = filepath.Clean(dir)
	switch {
	case dir == "/" || dir == "." || !filepath.IsAbs(dir):
		return "it is the root of the file system or not an absolute path"
	case home != "" && within(dir, home):
		return "it holds your whole home folder"
	}
	return opensSecret(dir, secrets)
}

// appendNew appends p unless list holds it.
func appendNew(list []string, p string) []string {
	for _, have := range list {
		if have == p {
			return list
		}
	}
	return append(list, p)
}

// underHome reports whether p lies below the home folder.
func underHome(p, home string) bool {
	return home != "" && within(home, p) && filepath.Clean(p) != filepath.Clean(home)
}

// onPath reports whether dir is one of the folders of the PATH list.
func onPath(dir, path string) bool {
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if d == dir {
			return true
		}
		if r, err := filepath.EvalSymlinks(d); err == nil && r == dir {
			return true
		}
	}
	return false
}
