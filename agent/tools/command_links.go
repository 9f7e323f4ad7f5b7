package tools

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/trust"
)

// guardLinks turns an autopilot "allow" into "ask" when an argument names
// an existing path whose real location is outside the workspace folders.
// The classifier sees only text: a committed link notes.txt -> a key file
// elsewhere reads as a plain relative path, so `cat notes.txt` would send
// the key to the model without a card. Links met while a command recurses
// are not seen here; the programs the classifier calls safe do not follow
// those by default.
func guardLinks(d trust.Decision, words []string, shell bool, dir string, folders []string) trust.Decision {
	if d.Action != trust.Allow {
		return d
	}
	if shell && len(words) == 1 {
		w, err := splitWords(words[0])
		if err != nil {
			return trust.Decision{Action: trust.Ask, Reason: "asks: the command's words could not be checked for links out of the workspace (" + err.Error() + ")"}
		}
		words = w
	}
	for _, w := range words[min(1, len(words)):] {
		for _, c := range pathCandidates(w) {
			p := c
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if _, err := os.Lstat(p); err != nil {
				continue // not an existing path: nothing to follow
			}
			if _, err := confine(folders, p); err != nil {
				return trust.Decision{Action: trust.Ask, Reason: "asks even under autopilot: " + c + " resolves outside the workspace (a symlink), so the command would read a file the workspace does not hold"}
			}
		}
	}
	return d
}

// pathCandidates are the words of an argument that may name a file: the
// argument itself, and the value of a --flag=value.
func pathCandidates(w string) []string {
	if w == "" || w == "-" {
		return nil
	}
	if strings.HasPrefix(w, "-") {
		if _, v, ok := strings.Cut(w, "="); ok && v != "" {
			return []string{v}
		}
		return nil
	}
	return []string{w}
}
