package trust

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// RuleKind is what a saved rule allows without a card.
type RuleKind string

// The kinds of saved rules.
const (
	// RuleCommand allows a run_command of exactly its words, or (Prefix)
	// its words followed by paths inside the folder the command runs in.
	RuleCommand RuleKind = "command"
	// RuleWrite allows write_file and edit_file of files inside its folder
	// (and the folders below it), never repository metadata.
	RuleWrite RuleKind = "write"
)

// Rule is one "always allow" of a workspace, saved in the trust store from
// a card the user answered "Always allow". Only a card (and the user's own
// `agentls rules` command line) ever saves one: no config file, of either
// tier, can name a rule.
type Rule struct {
	Kind RuleKind `json:"kind"`
	// Argv are the words of a command rule: a run_command matches when its
	// words are exactly these (split without a shell, or a shell string of
	// plain words only), or with Prefix, these followed by any number of
	// paths that start with "./" and never climb out with "..".
	Argv   []string `json:"argv,omitempty"`
	Prefix bool     `json:"prefix,omitempty"`
	// Folder is a write rule's folder, relative to the workspace folder,
	// with forward slashes.
	Folder  string    `json:"folder,omitempty"`
	AddedAt time.Time `json:"addedAt"`
	// Deny makes it an "always deny" rule (rules_deny.go): the call it
	// matches is refused without a card. A deny command rule's Argv are
	// its words, or with Shell its one shell string; a deny write rule
	// names one file, Path.
	Deny  bool   `json:"deny,omitempty"`
	Shell bool   `json:"shell,omitempty"`
	Path  string `json:"path,omitempty"`
}

// ID names the rule for listing and revoking: "command: go test ./..." or
// "write: src/api". Two rules of a workspace never share one.
func (r Rule) ID() string {
	if r.Deny {
		return r.denyID()
	}
	switch r.Kind {
	case RuleCommand:
		return string(r.Kind) + ": " + r.pattern()
	case RuleWrite:
		return string(r.Kind) + ": " + r.Folder
	}
	return string(r.Kind)
}

// pathsPattern ends a prefix rule's pattern: "*" is a metacharacter no
// saved word may hold, so an exact rule's words can never read as one.
const pathsPattern = "./*"

// pattern is a command rule as its ID shows it: its words, and for a
// prefix rule "./*" after them ("go test ./*").
func (r Rule) pattern() string {
	if r.Prefix {
		if len(r.Argv) == 0 {
			return pathsPattern
		}
		return ShellQuote(r.Argv) + " " + pathsPattern
	}
	return ShellQuote(r.Argv)
}

// Describe says what the rule allows, the way a card's option names it.
func (r Rule) Describe() string {
	if r.Deny {
		return r.describeDeny()
	}
	switch r.Kind {
	case RuleCommand:
		if r.Prefix {
			return "run `" + ShellQuote(r.Argv) + "` followed by any paths inside its folder (./…) without asking"
		}
		return "run `" + ShellQuote(r.Argv) + "` without asking"
	case RuleWrite:
		return "write files in " + r.Folder + "/ without asking"
	}
	return "unknown rule"
}

// ruleMetachars are the characters a command rule may never hold: a word
// with one means something else to a shell, or names more than itself (a
// glob), so a saved rule could be read as allowing more than the user saw.
const ruleMetachars = "|&;<>()$`\\\"'*?[]{}~#!\n\r\t "

// CommandRule is the rule a card for argv may offer to save ("always allow
// this command in this workspace"), or an error saying why none can be:
// a shell string with shell syntax, a word holding a shell metacharacter,
// a program run by path or with variables set, or a program the classifier
// calls dangerous (it deletes, writes or moves files, changes permissions,
// runs as another user, runs a shell, an interpreter or another command
// given as arguments, uses the network, controls the system, or is
// interactive). Building, testing and linting programs (go test, npm run
// lint, make) may be saved: the card says exactly which words.
//
// A command whose last words are paths inside its folder ("./...",
// "./cmd/agentls") gets a prefix rule: its other words followed by any
// such paths ("go test ./*" from "go test ./..."). Every other command
// gets a rule of exactly its words: "npm run lint" does not allow "npm run
// lint -- --fix", since an option can change what the program runs (go
// test -exec, make -f, npm --prefix), and neither does any other extra
// word ("npm install" never allows "npm install some-package").
func CommandRule(argv []string, shell bool) (Rule, error) {
	words, err := ruleWords(argv, shell)
	if err != nil {
		return Rule{}, err
	}
	k := len(words)
	for k > 1 && isInsidePath(words[k-1]) {
		k--
	}
	return Rule{Kind: RuleCommand, Argv: slices.Clone(words[:k]), Prefix: k < len(words)}, nil
}

// ruleWords are the words of a command a rule could name, or why there is
// none (CommandRule's refusals).
func ruleWords(argv []string, shell bool) ([]string, error) {
	words := argv
	if shell {
		if len(argv) != 1 {
			return nil, errors.New("a shell command must be one string")
		}
		w, reasons := splitShell(argv[0])
		if len(reasons) > 0 {
			return nil, fmt.Errorf("it uses shell syntax (%s): only a command of plain words can be always allowed", strings.Join(reasons, "; "))
		}
		words = w
	}
	if len(words) == 0 || words[0] == "" {
		return nil, errors.New("the command is empty")
	}
	for _, w := range words {
		if w == "" {
			return nil, errors.New("it has an empty word")
		}
		if i := strings.IndexAny(w, ruleMetachars); i >= 0 {
			return nil, fmt.Errorf("the word %s holds the shell metacharacter %q", ShellQuote([]string{w}), w[i])
		}
		for _, c := range w {
			if unicode.IsControl(c) || !unicode.IsPrint(c) {
				return nil, fmt.Errorf("the word %s holds an invisible character", Visible(w))
			}
		}
	}
	prog := words[0]
	switch {
	case strings.Contains(prog, "="):
		return nil, fmt.Errorf("it sets environment variables (%s)", prog)
	case strings.ContainsAny(prog, `/\`):
		return nil, fmt.Errorf("it runs a program by path (%s), which the agent may rewrite: only programs found on PATH can be always allowed", prog)
	case strings.HasPrefix(prog, "-"):
		return nil, fmt.Errorf("it starts with an option (%s), not a program", prog)
	}
	if why, ok := dangerousPrograms[prog]; ok && !ruleMayRun(prog) {
		return nil, fmt.Errorf("%s %s, which is never always allowed", prog, why)
	}
	return words, nil
}

// isInsidePath reports whether a word is a path a prefix rule may take in
// place of another: "." or one starting with "./" with no ".." part, so it
// names something inside the folder the command runs in (which the agent
// can already read and, with a card, write), never an option, a package to
// fetch, or a place outside.
func isInsidePath(w string) bool {
	if w != "." && !strings.HasPrefix(w, "./") {
		return false
	}
	for _, part := range strings.Split(w, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}

// WriteRule is the rule a write card for relPath (relative to its
// workspace folder) may offer to save: writes inside relPath's folder. A
// file at the workspace folder's top has no folder to save (that would
// allow every write: the auto-edit mode is the way to say so), and a file
// of repository metadata never gets one (its card says why it asks).
func WriteRule(relPath string) (Rule, error) {
	rel := filepath.ToSlash(filepath.Clean(relPath))
	if rel == "." || rel == "" || filepath.IsAbs(relPath) || rel == ".." || strings.HasPrefix(rel, "../") {
		return Rule{}, fmt.Errorf("%s is not a file inside the workspace folder", relPath)
	}
	dir := path.Dir(rel)
	if dir == "." {
		return Rule{}, fmt.Errorf("%s is at the top of the workspace folder: a rule for every file there would allow any write (choose the auto-edit mode for that)", rel)
	}
	return Rule{Kind: RuleWrite, Folder: dir}, nil
}

// ruleMayRun reports whether prog, one of dangerousPrograms, may be named
// by a command rule: a program that builds, tests or lints the project,
// which is what such rules are for (the card shows the exact words, and a
// rule matches only those). npx and pipx are not: they fetch and run
// whatever package their arguments name.
func ruleMayRun(prog string) bool {
	return strings.HasPrefix(dangerousPrograms[prog], "builds, installs or runs project code") && prog != "npx" && prog != "pipx"
}

// matches reports whether a run_command of words (already split) is what
// the command rule allows.
func (r Rule) matchesCommand(words []string) bool {
	if r.Kind != RuleCommand {
		return false
	}
	if !r.Prefix {
		return slices.Equal(r.Argv, words)
	}
	if len(r.Argv) == 0 || len(words) < len(r.Argv) || !slices.Equal(r.Argv, words[:len(r.Argv)]) {
		return false
	}
	for _, w := range words[len(r.Argv):] {
		if !isInsidePath(w) {
			return false
		}
	}
	return true
}

// matchesWrite reports whether a write of rel (relative, slash-separated)
// is inside the write rule's folder.
func (r Rule) matchesWrite(rel string) bool {
	return r.Kind == RuleWrite && r.Folder != "" && strings.HasPrefix(rel, r.Folder+"/")
}

// AddRule saves r for the workspace folder root. A rule the same as one
// saved (same ID) replaces it.
func (s *Store) AddRule(root string, r Rule) error {
	if root == "" || !filepath.IsAbs(root) {
		return fmt.Errorf("trust: add rule: need the workspace folder as an absolute path (got %q)", root)
	}
	if r.Deny {
		if err := r.validDeny(); err != nil {
			return fmt.Errorf("trust: add rule: %w", err)
		}
	} else {
		switch r.Kind {
		case RuleCommand:
			if _, err := ruleWords(r.Argv, false); err != nil {
				return fmt.Errorf("trust: add rule: %s cannot be always allowed: %w", ShellQuote(r.Argv), err)
			}
		case RuleWrite:
			if _, err := WriteRule(r.Folder + "/x"); err != nil || path.Clean(r.Folder) != r.Folder {
				return fmt.Errorf("trust: add rule: %q is not a folder inside the workspace (expected a relative path like \"src/api\")", r.Folder)
			}
		default:
			return fmt.Errorf("trust: add rule: unknown kind %q (expected %q or %q)", r.Kind, RuleCommand, RuleWrite)
		}
	}
	if r.AddedAt.IsZero() {
		r.AddedAt = time.Now().UTC()
	}
	return s.update(func(f *storeFile) {
		w := f.workspace(root)
		w.Rules = slices.DeleteFunc(w.Rules, func(x Rule) bool { return x.ID() == r.ID() })
		w.Rules = append(w.Rules, r)
	})
}

// Rules lists the saved rules of a workspace folder, by ID.
func (s *Store) Rules(root string) ([]Rule, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	var out []Rule
	if w := f.Workspaces[filepath.Clean(root)]; w != nil {
		out = slices.Clone(w.Rules)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out, nil
}

// RevokeRule forgets the rule of a workspace folder with this ID; it
// reports whether there was one.
func (s *Store) RevokeRule(root, id string) (bool, error) {
	found := false
	err := s.update(func(f *storeFile) {
		key := filepath.Clean(root)
		w := f.Workspaces[key]
		if w == nil {
			return
		}
		n := len(w.Rules)
		w.Rules = slices.DeleteFunc(w.Rules, func(x Rule) bool { return x.ID() == id })
		found = len(w.Rules) < n
		if w.empty() {
			delete(f.Workspaces, key)
		}
	})
	return found, err
}

// CommandAllowed is the saved rule of root that allows a run_command of
// argv (with shell, one shell string), if one does: only a command that
// could itself be saved as a rule (CommandRule) is matched: word for word,
// or a prefix rule's words followed by paths inside the folder. Any error
// reads as no rule (fail closed).
func (s *Store) CommandAllowed(root string, argv []string, shell bool) (Rule, bool) {
	words, err := ruleWords(argv, shell)
	if err != nil {
		return Rule{}, false
	}
	return s.findRule(root, func(r Rule) bool { return r.matchesCommand(words) })
}

// WriteAllowed is the saved rule of root that allows writing rel (relative
// to root), if one does. Any error reads as no rule (fail closed).
func (s *Store) WriteAllowed(root, rel string) (Rule, bool) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return Rule{}, false
	}
	return s.findRule(root, func(r Rule) bool { return r.matchesWrite(rel) })
}

// findRule is the first allow rule of root that match accepts.
func (s *Store) findRule(root string, match func(Rule) bool) (Rule, bool) {
	return s.findAny(root, func(r Rule) bool { return !r.Deny && match(r) })
}

// findAny is the first rule of root, allow or deny, that match accepts.
func (s *Store) findAny(root string, match func(Rule) bool) (Rule, bool) {
	if s == nil || root == "" {
		return Rule{}, false
	}
	f, err := s.read()
	if err != nil {
		return Rule{}, false
	}
	w := f.Workspaces[filepath.Clean(root)]
	if w == nil {
		return Rule{}, false
	}
	for _, r := range w.Rules {
		if match(r) {
			return r, true
		}
	}
	return Rule{}, false
}

// AllRules are the saved rules of every workspace folder, by folder.
func (s *Store) AllRules() (map[string][]Rule, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := map[string][]Rule{}
	for root, w := range f.Workspaces {
		if len(w.Rules) > 0 {
			rs := slices.Clone(w.Rules)
			sort.Slice(rs, func(i, j int) bool { return rs[i].ID() < rs[j].ID() })
			out[root] = rs
		}
	}
	return out, nil
}
