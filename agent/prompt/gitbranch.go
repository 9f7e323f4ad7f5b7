package prompt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	gitTimeout = 2 * time.Second
	// maxGitFile caps what is read of HEAD, a .git file or commondir: each is
	// one line, and a repo must not make every agent/run read a huge file.
	maxGitFile = 4 << 10
	// maxPackedRefs caps the packed-refs scan for a name clash; a bigger
	// file leaves the answer to git.
	maxPackedRefs = 1 << 20
)

// gitBranch is the current branch ("detached at <sha>" without one), or ""
// outside a repository or when git is slow. It is what
// `git symbolic-ref --short -q HEAD`, then `git rev-parse --short HEAD`,
// print in dir; the common case, a branch checked out in a repository the
// user owns, is read from the files instead: running git costs 1.5–2 ms of
// fork and exec before every first model request.
func gitBranch(ctx context.Context, dir string) string {
	br, ok := gitBranchFromFiles(dir)
	if ok {
		return br
	}
	return gitBranchRun(ctx, dir)
}

// gitBranchRun asks git itself: for a detached HEAD (the short hash's length
// depends on the object count), and whenever the files leave any doubt.
func gitBranchRun(ctx context.Context, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	git := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	// symbolic-ref also names a branch with no commit yet.
	if br := git("symbolic-ref", "--short", "-q", "HEAD"); br != "" {
		return br
	}
	if sha := git("rev-parse", "--short", "HEAD"); sha != "" {
		return "detached at " + sha
	}
	return ""
}

// gitBranchFromFiles finds the repository as git does (dir, then each parent,
// not across a file system) and reads its HEAD. ok is false when only git
// can answer exactly: a detached HEAD, an environment that changes discovery,
// a repository git would refuse as not owned by the user, a HEAD or .git
// file it does not recognize, or a branch name that clashes with a tag.
func gitBranchFromFiles(dir string) (branch string, ok bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if os.Getenv(v) != "" {
			return "", false
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	start, err := os.Stat(dir)
	if err != nil {
		return "", false
	}
	for d := dir; ; {
		fi, err := os.Lstat(filepath.Join(d, ".git"))
		switch {
		case err == nil:
			return branchOfRepo(d, fi)
		case !os.IsNotExist(err):
			return "", false
		}
		// A bare repository is found by its HEAD; leave that to git.
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); !os.IsNotExist(err) {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", true // no repository up to the root: git prints nothing
		}
		pfi, err := os.Stat(parent)
		if err != nil {
			return "", false
		}
		if !sameDevice(start, pfi) {
			return "", true // git stops at a mount point
		}
		d = parent
	}
}

// branchOfRepo reads the branch of the work tree top whose .git entry is fi.
func branchOfRepo(top string, fi os.FileInfo) (string, bool) {
	gitDir := filepath.Join(top, ".git")
	owned := []string{top}
	switch {
	case fi.Mode().IsRegular():
		// Worktrees and submodules: ".git" is a file naming the real one.
		raw, err := readCapped(gitDir, maxGitFile)
		line := strings.TrimRight(string(raw), "\r\n")
		target, found := strings.CutPrefix(line, "gitdir: ")
		if err != nil || !found || target == "" || strings.ContainsAny(target, "\n\x00") {
			return "", false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(top, target)
		}
		owned = append(owned, gitDir)
		gitDir = target
	case !fi.IsDir():
		return "", false
	}
	owned = append(owned, gitDir)
	// git refuses a repository another user owns (the safe.directory check,
	// which stops a planted repository's config running code); it then
	// prints nothing, or obeys a safe.directory entry: leave that to git.
	for _, p := range owned {
		fi, err := os.Lstat(p)
		if err != nil || !ownedByUser(fi) {
			return "", false
		}
	}
	head, err := readCapped(filepath.Join(gitDir, "HEAD"), maxGitFile)
	if err != nil {
		return "", false
	}
	ref, found := strings.CutPrefix(strings.TrimRight(string(head), "\r\n"), "ref: ")
	if !found {
		return "", false // detached: the short hash is git's to print
	}
	name, found := strings.CutPrefix(ref, "refs/heads/")
	// A name git would reject (the reftable backend's "refs/heads/.invalid"
	// among them) is git's to judge; this also keeps odd bytes from a
	// repo-authored HEAD out of the system prompt.
	if !found || !validRefName(ref) {
		return "", false
	}
	if refClash(gitDir, name) {
		return "", false // git shortens to "heads/<name>"
	}
	return name, true
}

// refClash reports whether a ref that `--short` checks before refs/heads
// (<name>, refs/<name>, refs/tags/<name>) may exist, loose or packed; any
// doubt counts as a clash.
func refClash(gitDir, name string) bool {
	common := gitDir
	if raw, err := readCapped(filepath.Join(gitDir, "commondir"), maxGitFile); err == nil {
		c := strings.TrimRight(string(raw), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	} else if !os.IsNotExist(err) {
		return true
	}
	dirs := []string{gitDir}
	if common != gitDir {
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		for _, p := range []string{name, "refs/" + name, "refs/tags/" + name} {
			if _, err := os.Lstat(filepath.Join(d, filepath.FromSlash(p))); !os.IsNotExist(err) {
				return true
			}
		}
	}
	packed, err := readCapped(filepath.Join(common, "packed-refs"), maxPackedRefs)
	switch {
	case os.IsNotExist(err):
		return false
	case err != nil:
		return true
	}
	// Lines are "<hash> <ref>"; a tag's peeled line starts with '^'.
	return bytes.Contains(packed, []byte(" refs/"+name+"\n")) || bytes.Contains(packed, []byte(" refs/tags/"+name+"\n"))
}

// validRefName applies git's check-ref-format rules to a full ref name.
func validRefName(ref string) bool {
	if ref == "" || ref == "@" || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") ||
		strings.Contains(ref, "..") || strings.Contains(ref, "@{") || strings.Contains(ref, "//") {
		return false
	}
	for _, c := range []byte(ref) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, comp := range strings.Split(ref, "/") {
		if comp == "" || comp[0] == '.' || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

// errTooBig marks a file over its cap: git reads it whole, so only git can
// say what it means.
var errTooBig = errors.New("file over its size cap")

// readCapped reads a file of at most n bytes.
func readCapped(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n+1))
	if err == nil && int64(len(b)) > n {
		return nil, errTooBig
	}
	return b, err
}
