package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Toolchains is a home folder laid out as the version managers lay out
// theirs, for tests of confined programs on ordinary machines: a pyenv
// whose shim (~/.pyenv/shims/python3) runs the manager's own script
// (~/.pyenv/libexec/pyenv), which reads its version pin and runs the
// interpreter under ~/.pyenv/versions; an nvm whose node lives under
// ~/.nvm/versions/node/VERSION/bin, with npx a link into that version's
// lib/node_modules/npm; and an asdf whose shim for go runs
// ~/.asdf/libexec/asdf, which runs the go under ~/.asdf/installs. Each
// interpreter there is a script that runs the system's real one (python3,
// node, go must be installed), so every step from the shim to the real
// program is a file under the manager's root that a confined program must
// be allowed to read and run.
type Toolchains struct {
	Home string
	// PATH puts the shims and nvm's bin first, the system after.
	PATH string
}

// NewToolchains builds the layout in a new temporary home folder; Use
// makes it this test's home.
func NewToolchains(t testing.TB) Toolchains {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	python, node, npx, gobin := systemTool(t, "python3"), systemTool(t, "node"), systemTool(t, "npx"), systemTool(t, "go")
	script := func(path, body string) {
		t.Helper()
		WriteFile(t, path, "#!/bin/sh\n"+body+"\n")
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// pyenv: shim -> libexec/pyenv exec PROGRAM -> versions/V/bin/PROGRAM.
	pyenv := filepath.Join(home, ".pyenv")
	script(filepath.Join(pyenv, "shims", "python3"), `export PYENV_ROOT="`+pyenv+`"
exec "`+pyenv+`/libexec/pyenv" exec "${0##*/}" "$@"`)
	script(filepath.Join(pyenv, "libexec", "pyenv"), `[ "$1" = exec ] || { echo "pyenv: only exec is known here" >&2; exit 1; }
shift; program="$1"; shift
version=$(cat "$PYENV_ROOT/version") || exit 1
exec "$PYENV_ROOT/versions/$version/bin/$program" "$@"`)
	WriteFile(t, filepath.Join(pyenv, "version"), "3.99.0\n")
	script(filepath.Join(pyenv, "versions", "3.99.0", "bin", "python3"), `exec "`+python+`" "$@"`)

	// nvm: versions/node/V/bin/node, and bin/npx -> ../lib/node_modules/npm/bin/npx-cli.js.
	nvmVersion := filepath.Join(home, ".nvm", "versions", "node", "v99.0.0")
	script(filepath.Join(nvmVersion, "bin", "node"), `exec "`+node+`" "$@"`)
	npxCLI, err := filepath.EvalSymlinks(npx)
	if err != nil {
		t.Fatal(err)
	}
	npm := filepath.Dir(filepath.Dir(npxCLI)) // .../node_modules/npm
	if filepath.Base(npm) != "npm" {
		Missing(t, "npm's npx-cli.js (npx resolves to "+npxCLI+")", "install npm from nodejs.org or the distribution")
	}
	lib := filepath.Join(nvmVersion, "lib", "node_modules")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	// npm itself is the system's (linked: its 19 MB are not copied); the
	// link nvm puts on PATH and the node it runs are under the root.
	if err := os.Symlink(npm, filepath.Join(lib, "npm")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/node_modules/npm/bin/npx-cli.js", filepath.Join(nvmVersion, "bin", "npx")); err != nil {
		t.Fatal(err)
	}

	// asdf: shims/go -> libexec/asdf exec go -> installs/golang/V/go/bin/go.
	asdf := filepath.Join(home, ".asdf")
	script(filepath.Join(asdf, "shims", "go"), `exec "`+asdf+`/libexec/asdf" exec go "$@"`)
	script(filepath.Join(asdf, "libexec", "asdf"), `shift; program="$1"; shift
exec "`+asdf+`/installs/golang/1.99.0/go/bin/$program" "$@"`)
	script(filepath.Join(asdf, "installs", "golang", "1.99.0", "go", "bin", "go"), `exec "`+gobin+`" "$@"`)

	path := []string{filepath.Join(pyenv, "shims"), filepath.Join(nvmVersion, "bin"), filepath.Join(asdf, "shims")}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" && !strings.HasPrefix(d, os.Getenv("HOME")+string(filepath.Separator)) {
			path = append(path, d) // the system's, not the real home's
		}
	}
	return Toolchains{Home: home, PATH: strings.Join(path, string(filepath.ListSeparator))}
}

// Use sets HOME and PATH to the layout's and clears the variables that
// would point the managers (and agentls) at the machine's own roots.
func (tc Toolchains) Use(t testing.TB) {
	t.Helper()
	t.Setenv("HOME", tc.Home)
	t.Setenv("PATH", tc.PATH)
	for _, v := range []string{"PYENV_ROOT", "RBENV_ROOT", "NVM_DIR", "ASDF_DATA_DIR", "MISE_DATA_DIR", "VOLTA_HOME",
		"SDKMAN_DIR", "BUN_INSTALL", "DENO_INSTALL", "CARGO_HOME", "RUSTUP_HOME", "GOPATH", "UV_PYTHON_INSTALL_DIR",
		"UV_TOOL_DIR", "PIPX_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
}

// systemTool finds name on PATH outside the home folder (a python3 found
// through the machine's own pyenv would be read from the real home, which
// the test's confined programs do not see).
func systemTool(t testing.TB, name string) string {
	t.Helper()
	home := os.Getenv("HOME")
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" || home != "" && strings.HasPrefix(d, home+string(filepath.Separator)) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p
		}
	}
	Missing(t, name+" outside the home folder", "install it from the distribution (apt-get install python3 nodejs npm golang)")
	return ""
}

// EchoServers puts two dependency-free MCP servers in dir (a workspace):
// echo_server.py and echo_server.js, each with one tool, echo, answering
// "python says TEXT" and "node says TEXT"; and the JavaScript one again as
// the npm package echo-js installed in dir/node_modules (its bin linked
// in node_modules/.bin), so `npx --offline echo-js` run in dir starts it.
// With --say WORD the JavaScript one prints "node says WORD" and exits.
func EchoServers(t testing.TB, dir string) {
	t.Helper()
	src := filepath.Join(RepoRoot(), "internal", "testenv", "testdata")
	for _, name := range []string{"echo_server.py", "echo_server.js"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		WriteFile(t, filepath.Join(dir, name), string(b))
		if name == "echo_server.js" {
			pkg := filepath.Join(dir, "node_modules", "echo-js")
			WriteFile(t, filepath.Join(pkg, "index.js"), "#!/usr/bin/env node\n"+string(b))
			WriteFile(t, filepath.Join(pkg, "package.json"), `{"name": "echo-js", "version": "1.0.0", "bin": {"echo-js": "index.js"}}`+"\n")
			if err := os.Chmod(filepath.Join(pkg, "index.js"), 0o755); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "node_modules", ".bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../echo-js/index.js", filepath.Join(bin, "echo-js")); err != nil {
				t.Fatal(err)
			}
		}
	}
}
