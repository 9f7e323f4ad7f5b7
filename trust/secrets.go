package trust

import (
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/config"
)

// opensSecret says why granting dir to a confined program would open a
// secret (it is, holds or lies in a secret folder, or a component of it
// names one), or "".
func opensSecret(dir string, secrets []string) string {
	for _, s := range secrets {
		if within(s, dir) || within(dir, s) {
			return "it is or holds " + s + ", which holds secrets"
		}
	}
	for _, part := range strings.Split(dir, string(filepath.Separator)) {
		if config.SecretName(part) {
			return part + " usually holds secrets"
		}
	}
	return ""
}
