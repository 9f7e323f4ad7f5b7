package tools

import (
	"context"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/trust"
)

// gitProbeTimeout bounds `git config --list`, which reads files only.
const gitProbeTimeout = 10 * time.Second

// guardGit turns an autopilot "allow" of a git command into "ask" when the
// repository git would use in dir carries settings that run programs
// (trust.GitConfigRisks). Stops a repository shipped with its own .git, or
// a bare repository committed in a subfolder, from turning a read-only
// `git diff` into its own program under autopilot. When the config cannot
// be read the command asks (fail closed).
func guardGit(ctx context.Context, d trust.Decision, words []string, shell bool, dir string, env []string) trust.Decision {
	if d.Action != trust.Allow || !isGit(words, shell) {
		return d
	}
	ctx, cancel := context.WithTimeout(ctx, gitProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "--list", "--show-scope", "-z")
	cmd.Dir, cmd.Env = gitDir(words, shell, dir), env
	out, err := cmd.Output()
	if err != nil {
		return trust.Decision{Action: trust.Ask, Reason: "asks: the repository's git config could not be checked for settings that run programs (" + err.Error() + ")"}
	}
	if risks := trust.GitConfigRisks(out); len(risks) > 0 {
		return trust.Decision{Action: trust.Ask, Reason: "asks even under autopilot: " + strings.Join(risks, "; ")}
	}
	return d
}

// gitDir is the folder git works in for the command: dir, changed by
// each leading -C FOLDER the way git applies them (relative to the one
// before). Its config, not dir's, decides what git runs.
func gitDir(words []string, shell bool, dir string) string {
	if shell && len(words) == 1 {
		w, err := splitWords(words[0])
		if err != nil {
			w = strings.Fields(words[0])
		}
		words = w
	}
	for i := 1; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
		if words[i] == "-C" && i+1 < len(words) {
			i++
			if filepath.IsAbs(words[i]) {
				dir = words[i]
			} else {
				dir = filepath.Join(dir, words[i])
			}
		}
	}
	return dir
}

// isGit reports whether the command runs git (argv, or the first word of
// a shell string the classifier called plain words).
func isGit(words []string, shell bool) bool {
	if shell && len(words) == 1 {
		words = strings.Fields(words[0])
	}
	return len(words) > 0 && path.Base(words[0]) == "git"
}
