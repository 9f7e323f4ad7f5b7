package config

import (
	"os"
	"path/filepath"
	"strings"
)

// homeSecretDirs are the folders under the home folder that hold keys,
// tokens and credentials (and agentls's own config and state), as the
// README lists them. Nothing a confined program is granted may be one of
// them, lie inside one or hold one.
var homeSecretDirs = []string{".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".password-store",
	".config/gcloud", ".config/gh", ".local/share/keyrings", ".config/agentls", ".local/state/agentls"}

// SecretDirs are the folders that hold the user's secrets: the key stores
// of the home folder, agentls's state folder (sessions, transcripts, the
// trust store) and its config folder, each as named and as its links
// resolve. The read tools ask before opening anything in them, and no
// confined program is ever granted one.
func SecretDirs() []string {
	var dirs []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		dirs = append(dirs, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			dirs = append(dirs, r)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, d := range homeSecretDirs {
			add(filepath.Join(home, filepath.FromSlash(d)))
		}
	}
	add(StateDir())
	if u := UserPath(); u != "" && filepath.Base(filepath.Dir(u)) == "agentls" {
		add(filepath.Dir(u))
	}
	return dirs
}

// SecretName reports whether a path component names what holds secrets
// wherever it is: a key folder, a credentials file, a private key.
func SecretName(base string) bool {
	b := strings.ToLower(base)
	switch b {
	case ".ssh", ".aws", ".gnupg", ".netrc", "_netrc", ".git-credentials", ".pgpass", ".pypirc", ".password-store":
		return true
	}
	for _, k := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(b, k) {
			return true
		}
	}
	return false
}
