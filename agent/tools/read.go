package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/wire"
)

const (
	readTimeout    = 30 * time.Second
	maxListEntries = 1000
	maxFound       = 500
	maxMatches     = 200
	maxSearchFile  = 1 << 20
	maxReadFile    = 16 << 20
)

// skipDirs are never walked by find_files and search_text: VCS metadata and
// dependency trees that drown every result.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

var (
	readFileTool = newBuiltin(builtin{kind: wire.KindRead, timeout: readTimeout, readOnly: true, readsPath: true},
		"read_file", "Read a workspace file (unsaved editor text if open) with numbered lines, or lines start_line to end_line.", readFile)
	listDirectoryTool = newBuiltin(builtin{kind: wire.KindSearch, timeout: readTimeout, readOnly: true, readsPath: true},
		"list_directory", "List a workspace directory (default: the workspace folder); directories end in '/'.", listDirectory)
	findFilesTool = newBuiltin(builtin{kind: wire.KindSearch, timeout: readTimeout, readOnly: true, readsPath: true},
		"find_files", "Find files under path (default: the workspace folder) whose name, or path below it if pattern has a '/', matches pattern ('*.go', 'cmd/*/main.go').", findFiles)
	searchTextTool = newBuiltin(builtin{kind: wire.KindSearch, timeout: readTimeout, readOnly: true, readsPath: true},
		"search_text", "Search files under path (default: the workspace folder) for pattern (Go RE2), in files whose name matches glob ('*.go') if given; returns path:line: text.", searchText)
)

type readFileArgs struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
}

type listDirectoryArgs struct {
	Path string `json:"path,omitempty"`
}

type findFilesArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

type searchTextArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Glob    string `json:"glob,omitempty"`
}

func readFile(ctx context.Context, env *Env, call Call, a *readFileArgs) (string, error) {
	t, err := readTarget(ctx, env, call, "read_file", "Read", a.Path)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(t.Real); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s is a directory: use list_directory", a.Path)
	} else if err == nil && st.Size() > maxReadFile {
		return "", fmt.Errorf("%s is %d bytes, more than read_file reads (%d): use search_text to find the lines you need", a.Path, st.Size(), maxReadFile)
	}
	text, err := readText(env.Workspace, t)
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file (%d bytes), not text", a.Path, len(text))
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start, end := 1, len(lines)
	if a.StartLine > 0 {
		start = a.StartLine
	}
	if a.EndLine > 0 && a.EndLine < end {
		end = a.EndLine
	}
	if start > len(lines) && len(lines) > 0 {
		return "", fmt.Errorf("start_line %d is past the end of %s (%d lines)", start, a.Path, len(lines))
	}
	var b strings.Builder
	for i := start; i <= end; i++ {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		fmt.Fprintf(&b, "%6d\t%s", i, strings.TrimSuffix(lines[i-1], "\n"))
		b.WriteByte('\n')
		if env.MaxBytes > 0 && b.Len() > env.MaxBytes {
			fmt.Fprintf(&b, "[... stopped at line %d of %d: use start_line to read on]\n", i, len(lines))
			break
		}
	}
	return b.String(), nil
}

func listDirectory(ctx context.Context, env *Env, call Call, a *listDirectoryArgs) (string, error) {
	if a.Path == "" {
		a.Path = "."
	}
	t, err := readTarget(ctx, env, call, "list_directory", "List", a.Path)
	if err != nil {
		return "", err
	}
	entries, err := readDirBeneath(t)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, e := range entries {
		if i == maxListEntries {
			fmt.Fprintf(&b, "[... %d more entries]\n", len(entries)-i)
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	if len(entries) == 0 {
		return "(empty directory)", nil
	}
	return b.String(), nil
}

// walkFiles walks t's confined directory, skipping skipDirs, calling fn
// with each regular file's real path and its path relative to the
// directory. Symlinks are not followed: a link out of the workspace is
// never walked into. The walk goes through an os.Root of t's workspace
// folder, so a folder swapped for a link out of it while the walk runs
// leads nowhere outside (beneath.go). Files and folders that hold secrets
// (secretPlaces) are passed over and counted in *passed: reading one
// takes read_file, which asks.
func walkFiles(ctx context.Context, env *Env, t target, passed *int, fn func(real, rel string) (stop bool)) error {
	root := t.Real
	// A search the user allowed inside a secret folder reads that folder.
	secret := func(p string) bool { return env.Secrets.reason(p) != "" }
	if secret(root) {
		secret = func(string) bool { return false }
	}
	start, err := t.rel()
	if err != nil {
		return err
	}
	folder, err := os.OpenRoot(t.Folder)
	if err != nil {
		return err
	}
	defer folder.Close()
	return fs.WalkDir(folder.FS(), filepath.ToSlash(start), func(slashed string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		p := filepath.Join(t.Folder, filepath.FromSlash(slashed))
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			if p != root && secret(p) {
				*passed++
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if secret(p) {
			*passed++
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if fn(p, filepath.ToSlash(rel)) {
			return filepath.SkipAll
		}
		return nil
	})
}

func findFiles(ctx context.Context, env *Env, call Call, a *findFilesArgs) (string, error) {
	if a.Pattern == "" {
		return "", fmt.Errorf("find_files: pattern is required, e.g. \"*.go\"")
	}
	if _, err := filepath.Match(a.Pattern, ""); err != nil {
		return "", fmt.Errorf("find_files: bad glob %q: %v", a.Pattern, err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	t, err := readTarget(ctx, env, call, "find_files", "Search", a.Path)
	if err != nil {
		return "", err
	}
	var found []string
	more := false
	passed := 0
	err = walkFiles(ctx, env, t, &passed, func(_, rel string) bool {
		shown := display(a.Path, rel)
		subject := filepath.Base(rel)
		if strings.Contains(a.Pattern, "/") {
			subject = rel
		}
		if ok, _ := filepath.Match(a.Pattern, subject); ok {
			if len(found) == maxFound {
				more = true
				return true
			}
			found = append(found, shown)
		}
		return false
	})
	if err != nil {
		return "", err
	}
	if len(found) == 0 {
		return fmt.Sprintf("no files match %q under %s", a.Pattern, a.Path) + passedNote(passed, "\n"), nil
	}
	sort.Strings(found)
	out := strings.Join(found, "\n") + "\n"
	if more {
		out += fmt.Sprintf("[... stopped after %d files: narrow the pattern]\n", maxFound)
	}
	return out + passedNote(passed, ""), nil
}

func searchText(ctx context.Context, env *Env, call Call, a *searchTextArgs) (string, error) {
	if a.Pattern == "" {
		return "", errors.New(`search_text: pattern is required, e.g. "func main" (a Go RE2 regular expression)`)
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return "", fmt.Errorf("search_text: pattern %q is not a valid regular expression (Go RE2 syntax): %v", a.Pattern, err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	t, err := readTarget(ctx, env, call, "search_text", "Search", a.Path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	n := 0
	passed := 0
	lexDir := t.Path // the editor's name for the searched directory
	search := func(real, rel string) bool {
		if a.Glob != "" {
			if ok, _ := filepath.Match(a.Glob, filepath.Base(rel)); !ok {
				return false
			}
		}
		text, ok := env.Workspace.OpenText(filepath.Join(lexDir, filepath.FromSlash(rel)))
		if !ok {
			text, ok = env.Workspace.OpenText(real)
		}
		if !ok {
			raw, err := readBeneath(target{Path: real, Real: real, Folder: t.Folder}, maxSearchFile)
			if err != nil || !utf8.Valid(raw) {
				return false
			}
			text = string(raw)
		}
		for i, line := range strings.Split(text, "\n") {
			if re.MatchString(line) {
				if n == maxMatches {
					fmt.Fprintf(&b, "[... stopped after %d matches: narrow the pattern]\n", maxMatches)
					return true
				}
				n++
				fmt.Fprintf(&b, "%s:%d: %s\n", display(a.Path, rel), i+1, capText(line, 300))
			}
		}
		return false
	}
	if st, err := os.Stat(t.Real); err == nil && !st.IsDir() {
		a.Path, lexDir = filepath.Dir(a.Path), filepath.Dir(t.Path)
		search(t.Real, filepath.Base(t.Path))
	} else if err := walkFiles(ctx, env, t, &passed, search); err != nil {
		return "", err
	}
	if n == 0 {
		return fmt.Sprintf("no matches for %q under %s", a.Pattern, a.Path) + passedNote(passed, "\n"), nil
	}
	return b.String() + passedNote(passed, ""), nil
}

// passedNote says how many files or folders a walk passed over because
// they hold secrets ("" when none), after sep.
func passedNote(n int, sep string) string {
	if n == 0 {
		return ""
	}
	return sep + fmt.Sprintf("[%d files or folders that usually hold secrets were passed over: read_file asks the user before reading one]\n", n)
}

// display names a found file the way the model can pass it back: the
// requested directory joined with the path below it.
func display(dir, rel string) string {
	if dir == "" || dir == "." {
		return rel
	}
	return filepath.ToSlash(filepath.Join(dir, rel))
}
