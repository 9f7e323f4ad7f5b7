package trust

import (
	"bytes"
	"strconv"
	"strings"
)

// gitSafeKeys are the repository-scope git settings a read-only git command
// may meet without running anything: what clone, init and everyday use
// write. Everything else asks, because the list of settings that run a
// program (core.fsmonitor, diff.external, diff.*.textconv, filter.*.clean,
// gpg.program with log.showSignature, core.pager, ...) is long and grows.
var gitSafeKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.sparsecheckout": true, "core.sparsecheckoutcone": true, "core.checkstat": true,
	"core.trustctime": true, "core.untrackedcache": true, "core.splitindex": true,
	"core.commitgraph": true, "core.multipackindex": true, "core.abbrev": true,
	"core.quotepath": true, "core.compression": true, "core.preloadindex": true, "core.worktree": true,
	"init.defaultbranch": true, "push.default": true, "pull.rebase": true, "pull.ff": true,
	"fetch.prune": true, "user.name": true, "user.email": true, "color.ui": true,
	"gc.auto": true, "index.version": true, "feature.manyfiles": true,
	"extensions.objectformat": true, "extensions.worktreeconfig": true,
	"extensions.preciousobjects": true, "extensions.partialclone": true,
	"maintenance.auto": true, "maintenance.strategy": true, "lfs.repositoryformatversion": true,
}

// gitSafeSubsectionKeys are the safe last parts of section.NAME.key settings.
var gitSafeSubsectionKeys = map[string]map[string]bool{
	"remote":    {"url": true, "fetch": true, "pushurl": true, "tagopt": true, "prune": true, "mirror": true, "promisor": true, "partialclonefilter": true},
	"branch":    {"remote": true, "merge": true, "rebase": true, "pushremote": true, "description": true},
	"submodule": {"url": true, "active": true, "branch": true},
}

// GitConfigRisks reads the output of `git config --list --show-scope -z`
// and names every setting from the repository's own scopes (local,
// worktree) that is not known to be inert. The user's global and system
// files are theirs and trusted. A repository that arrives as an archive, or
// a bare repository committed in a subfolder, brings its own config, and a
// setting like diff.external or core.fsmonitor makes `git diff` or
// `git status` run the repository's program: such a git command must ask
// even under autopilot.
func GitConfigRisks(list []byte) []string {
	var reasons []string
	fields := bytes.Split(bytes.TrimSuffix(list, []byte{0}), []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		if scope != "local" && scope != "worktree" {
			continue
		}
		key, _, _ := strings.Cut(string(fields[i+1]), "\n")
		if !gitKeySafe(key) {
			reasons = append(reasons, "the repository's git config sets "+strconv.Quote(key)+" ("+scope+" scope), which git may use to run a program; only settings known to be inert pass")
		}
	}
	return reasons
}

func gitKeySafe(key string) bool {
	k := strings.ToLower(key)
	if gitSafeKeys[k] {
		return true
	}
	section, rest, ok := strings.Cut(k, ".")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return false
	}
	return gitSafeSubsectionKeys[section][rest[i+1:]]
}
