package tools

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/trust"
)

// vcsFolders are the folders version-control tools keep their own state
// and config in, by name, with the tool that reads them.
var vcsFolders = map[string]string{
	".git": "git", ".hg": "Mercurial", ".svn": "Subversion", ".jj": "Jujutsu",
	".bzr": "Bazaar", "_darcs": "Darcs", ".pijul": "Pijul", ".fossil-settings": "Fossil",
}

// metadataKind names what t writes when it is not an ordinary file of the
// project: "git metadata" for a file in a git directory (found by name or
// by its shape, so a committed bare repository or a submodule's moved git
// folder counts) or a .git file (which points git anywhere), the other
// version-control tools' folders, and agentls's own repository config.
// "" for anything else. A write there is how a repository's next git
// command, or the next agentls start, runs what the write put in.
func metadataKind(folders []string, real string) (kind, why string) {
	root := folderOf(folders, real)
	if filepath.Base(real) == ".git" {
		return "git metadata", gitWhy
	}
	for d := filepath.Dir(real); within(root, d); d = filepath.Dir(d) {
		if tool, ok := vcsFolders[filepath.Base(d)]; ok {
			if tool == "git" {
				return "git metadata", gitWhy
			}
			return tool + " metadata", tool + " reads it, and its config can name programs (hooks, extensions, aliases) that run at your next " + tool + " command"
		}
		if filepath.Base(d) == ".agentls" {
			return "agentls's repository config", "agentls reads it when it starts here: it can add MCP servers (each still asks on its own card) and change how agentls behaves in this repository"
		}
		if isGitDirectory(d) {
			return "git metadata", gitWhy
		}
		if d == root {
			break
		}
	}
	return "", ""
}

const gitWhy = "git runs the programs its config and hooks name (core.fsmonitor, diff.external, a filter, a hook), so this write can make your next git command run code"

// isGitDirectory reports whether d has the shape git looks for in a git
// directory: a HEAD file and an object store, its own or a linked
// worktree's commondir.
func isGitDirectory(d string) bool {
	if st, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !st.Mode().IsRegular() {
		return false
	}
	if st, err := os.Stat(filepath.Join(d, "objects")); err == nil && st.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(d, "commondir"))
	return err == nil
}

// writeCard is the title and the head of the detail of a write's card:
// the file written (after links), the link the model named when it is
// one, and, for repository metadata, a plain warning of what it does.
func writeCard(folders []string, t target, verb string) (title, head string) {
	kind, why := metadataKind(folders, t.Real)
	var notes []string
	if kind != "" {
		notes = append(notes, kind)
	}
	shown := t.Path
	head = trust.VisibleText(t.Path)
	if throughLink(folders, t) {
		shown = t.Real
		notes = append(notes, "through the link "+trust.Visible(t.Path))
		head = trust.VisibleText(t.Real) + "\n" + trust.VisibleText(t.Path) + " is a link: the file written is " + trust.VisibleText(t.Real) + "."
	}
	title = verb + " " + trust.Visible(shown)
	if len(notes) > 0 {
		title += " (" + strings.Join(notes, ", ") + ")"
	}
	if kind != "" {
		head += "\nWARNING: this writes " + kind + ": " + why + "."
	}
	return title + "?", head
}

// throughLink reports whether a link inside the workspace folder leads
// t's path elsewhere (a workspace folder opened through a link of its own
// is not that).
func throughLink(folders []string, t target) bool {
	for _, f := range folders {
		if !within(f, t.Path) {
			continue
		}
		rf, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		a, _ := filepath.Rel(f, t.Path)
		b, _ := filepath.Rel(rf, t.Real)
		return a != b
	}
	return t.Path != t.Real
}
