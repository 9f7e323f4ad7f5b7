package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

var sandboxKeys = []string{"read"}

// sandbox applies the user file's [sandbox] table. A workspace file never
// reaches here (workspaceTier ignores the table): a repository that could
// name folders to read would open the user's files to its own servers.
func (l *loader) sandbox(f *tomlFile, t map[string]any) {
	for _, k := range sortedKeys(t) {
		v, path := t[k], []string{"sandbox", k}
		if k != "read" {
			l.diag(f, SeverityWarning, path, unknownKey(sandboxKeys))
			continue
		}
		list, err := asStrings(v)
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; nothing more is readable")
			continue
		}
		for _, p := range list {
			dir, err := SandboxReadPath(p)
			if err != nil {
				l.diag(f, SeverityError, path, err.Error())
				continue
			}
			l.cfg.Sandbox.Read = append(l.cfg.Sandbox.Read, dir)
		}
	}
}

// SandboxReadPath checks one [sandbox] read entry and returns it absolute
// ("~/" is the home folder). Refused: a relative path, the root, the home
// folder or a folder above it (everything you have), and a folder that
// is, holds or lies in one of SecretDirs or is named like one (.ssh,
// .aws...): a confined program that may read them could send your keys
// wherever it may connect.
func SandboxReadPath(p string) (string, error) {
	orig := p
	home, _ := os.UserHomeDir()
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", fmt.Errorf("%q: there is no home folder to expand ~ in", orig)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not an absolute path: expected a folder like \"/opt/mcp\" or \"~/tools/mcp\"; the entry is ignored", orig)
	}
	p = filepath.Clean(p)
	forms := []string{p}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		forms = append(forms, r)
	}
	for _, d := range forms {
		if d == "/" || home != "" && isWithin(d, filepath.Clean(home)) {
			return "", fmt.Errorf("%q would open your whole home folder (or more) to confined programs: expected a folder inside it, like \"~/tools/mcp\"; the entry is ignored", orig)
		}
		for _, s := range SecretDirs() {
			if isWithin(s, d) || isWithin(d, s) {
				return "", fmt.Errorf("%q is or holds %s, which holds secrets (keys, tokens, agentls's own config or sessions); a confined program is never given it; the entry is ignored", orig, s)
			}
		}
		for _, part := range strings.Split(d, string(filepath.Separator)) {
			if SecretName(part) {
				return "", fmt.Errorf("%q: %s usually holds secrets; a confined program is never given it; the entry is ignored", orig, part)
			}
		}
	}
	return p, nil
}

// isWithin reports whether p is root or below it.
func isWithin(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
