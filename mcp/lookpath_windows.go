package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pathSeparators mark a command that names a file rather than a program
// to look up in PATH.
const pathSeparators = `/\`

// envPath is the PATH of env (Windows spells the name in any case: Path).
func envPath(env []string) string {
	path := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "PATH") {
			path = v
		}
	}
	return path
}

// executable returns p, or p with one of PATHEXT's extensions (npx ->
// npx.cmd), if that is a file Windows runs: Windows has no executable bit,
// the extension decides.
func executable(p string, env []string) (string, error) {
	exts := []string{".com", ".exe", ".bat", ".cmd"}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "PATHEXT") && v != "" {
			exts = nil
			for _, e := range strings.Split(strings.ToLower(v), ";") {
				if e != "" {
					exts = append(exts, e)
				}
			}
		}
	}
	isFile := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir()
	}
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range exts {
		if ext == e && isFile(p) {
			return p, nil
		}
	}
	for _, e := range exts {
		if isFile(p + e) {
			return p + e, nil
		}
	}
	return "", fmt.Errorf("%s is not a program Windows runs (no file with an extension of PATHEXT: %s)", p, strings.Join(exts, " "))
}
