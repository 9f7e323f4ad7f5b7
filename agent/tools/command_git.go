package tools

import (
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/trust"
)

// gitProbeTimeout bounds the checks of one git command: a walk of its
// workspace folder and `git config --list` in each repository found.
const gitProbeTimeout = 10 * time.Second

// gitMaxRepositories is how many nested repositories guardGit checks
// before it gives up and asks.
const gitMaxRepositories = 200

// guardGit turns an autopilot "allow" of a git command into "ask" when any
// repository git may read config from carries settings that run programs
// (trust.GitConfigRisks): the one the command runs in (as git finds it
// from dir, -C and the environment, with its includes and worktree
// config), and every submodule or nested repository in its workspace
// folder, which `git status` and `git diff` enter with a git of their own
// that reads their own config. Stops a repository shipped with its own
// .git, a bare repository committed in a subfolder, or a submodule whose
// config sets core.fsmonitor from turning a read-only `git status` into
// its own program under autopilot. When a config cannot be read the
// command asks (fail closed).
func guardGit(ctx context.Context, d trust.Decision, words []string, shell bool, dir string, folders []string, env []string) trust.Decision {
	if d.Action != trust.Allow || !isGit(words, shell) {
		return d
	}
	ctx, cancel := context.WithTimeout(ctx, gitProbeTimeout)
	defer cancel()
	work := gitDir(words, shell, dir)
	risks, err := gitConfigRisks(ctx, work, env)
	if err != nil {
		return trust.Decision{Action: trust.Ask, Reason: "asks: the repository's git config could not be checked for settings that run programs (" + err.Error() + ")"}
	}
	root := folderOf(folders, work)
	nested, err := nestedRepositories(ctx, root)
	if err != nil {
		return trust.Decision{Action: trust.Ask, Reason: "asks: the submodules and nested repositories git may enter could not all be checked for settings that run programs (" + err.Error() + ")"}
	}
	for _, n := range nested {
		rel, _ := filepath.Rel(root, n)
		r, err := gitConfigRisks(ctx, n, submoduleEnv(env))
		if err != nil {
			return trust.Decision{Action: trust.Ask, Reason: "asks: the git config of " + strconv.Quote(rel) + ", a submodule or nested repository git may enter, could not be checked for settings that run programs (" + err.Error() + ")"}
		}
		for _, x := range r {
			risks = append(risks, "in "+strconv.Quote(rel)+" (a submodule or nested repository git may enter, with a git that reads its own config): "+x)
		}
	}
	if len(risks) > 0 {
		return trust.Decision{Action: trust.Ask, Reason: "asks even under autopilot: " + strings.Join(risks, "; ")}
	}
	return d
}

// gitConfigRisks lists what trust.GitConfigRisks finds in the config git
// reads in dir with env: git itself resolves the repository, its .git
// file, includes and worktree config, so nothing is second-guessed here.
func gitConfigRisks(ctx context.Context, dir string, env []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "config", "--list", "--show-scope", "-z")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return nil, errors.New(strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, err
	}
	return trust.GitConfigRisks(out), nil
}

// nestedRepositories are the folders under root holding a .git (folder,
// file or link): every submodule, a submodule's submodules, and any
// other repository inside. Walking the disk, rather than asking git which
// submodules it knows, cannot miss one git would enter (a gitlink in an
// old commit, a .git file pointing elsewhere, an index that lies). Links
// are not followed, as git does not follow them into folders. root's own
// .git is left to the caller's check of the repository the command is in.
func nestedRepositories(ctx context.Context, root string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e.Name() != ".git" {
			return nil
		}
		if parent := filepath.Dir(p); parent != root {
			if len(found) == gitMaxRepositories {
				return errors.New("more than " + strconv.Itoa(gitMaxRepositories) + " nested repositories")
			}
			found = append(found, parent)
		}
		if e.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return found, err
}

// folderOf is the workspace folder that holds dir (dir itself when none
// does): the tree a git in dir can read under confinement.
func folderOf(folders []string, dir string) string {
	for _, f := range folders {
		if real, err := filepath.EvalSymlinks(f); err == nil && within(real, dir) {
			return real
		}
	}
	return dir
}

// gitRepoEnv are the variables that tie git to one repository; git clears
// them when it starts a git in a submodule, and so does the check of one.
var gitRepoEnv = map[string]bool{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_CONFIG": true, "GIT_OBJECT_DIRECTORY": true,
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_IMPLICIT_WORK_TREE": true, "GIT_GRAFT_FILE": true,
	"GIT_INDEX_FILE": true, "GIT_NO_REPLACE_OBJECTS": true, "GIT_REPLACE_REF_BASE": true,
	"GIT_PREFIX": true, "GIT_SHALLOW_FILE": true, "GIT_COMMON_DIR": true,
}

// submoduleEnv is env as git gives it to the git it starts in a
// submodule: the repository variables cleared, GIT_DIR=.git.
func submoduleEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !gitRepoEnv[k] {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_DIR=.git")
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
