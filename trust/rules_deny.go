package trust

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// "Always deny" rules: saved from a card the user answered "Always deny",
// they refuse a call without a card from then on, in every mode. Unlike an
// allow rule, any command and any file may get one (refusing is never
// what an attack wants); what one matches is exactly what the card showed:
// a command's words (or its whole shell string when it has shell syntax),
// one file.

// denyCommandMax bounds a deny command rule's text: a card for a longer
// command offers no "Always deny" (its rule could not be listed usefully).
const denyCommandMax = 1000

// DenyCommandRule is the "always deny" rule a card for a run_command of
// argv (with shell, one shell string) may offer: its words when the
// command is plain words, shell or not ("rm -rf build"), else the shell
// string exactly. An error says why none can be saved.
func DenyCommandRule(argv []string, shell bool) (Rule, error) {
	words, sh := argv, false
	if shell {
		if len(argv) != 1 {
			return Rule{}, errors.New("a shell command must be one string")
		}
		if w, reasons := splitShell(argv[0]); len(reasons) == 0 {
			words = w
		} else {
			sh = true
		}
	}
	r := Rule{Kind: RuleCommand, Deny: true, Shell: sh, Argv: slices.Clone(words)}
	return r, r.validDeny()
}

// DenyWriteRule is the "always deny" rule a write card for relPath
// (relative to its workspace folder) may offer: writes of that one file.
func DenyWriteRule(relPath string) (Rule, error) {
	r := Rule{Kind: RuleWrite, Deny: true, Path: filepath.ToSlash(filepath.Clean(relPath))}
	if filepath.IsAbs(relPath) {
		return Rule{}, fmt.Errorf("%s is not a file inside the workspace folder", relPath)
	}
	return r, r.validDeny()
}

// validDeny says what is wrong with a deny rule, nil when nothing is.
func (r Rule) validDeny() error {
	switch r.Kind {
	case RuleCommand:
		if len(r.Argv) == 0 || r.Argv[0] == "" || (r.Shell && len(r.Argv) != 1) {
			return errors.New("a deny command rule needs the command's words (or one shell string with shell)")
		}
		n := 0
		for _, w := range r.Argv {
			n += len(w) + 1
			if strings.IndexFunc(w, func(c rune) bool { return unicode.IsControl(c) || !unicode.IsPrint(c) && c != ' ' }) >= 0 {
				return fmt.Errorf("the command %s holds an invisible character", Visible(strings.Join(r.Argv, " ")))
			}
		}
		if n > denyCommandMax {
			return fmt.Errorf("the command is longer than %d bytes", denyCommandMax)
		}
		return nil
	case RuleWrite:
		p := r.Path
		if p == "" || p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") || filepath.ToSlash(filepath.Clean(p)) != p {
			return fmt.Errorf("%q is not a file inside the workspace (expected a relative path like \"src/api/handler.go\")", p)
		}
		return nil
	}
	return fmt.Errorf("unknown kind %q (expected %q or %q)", r.Kind, RuleCommand, RuleWrite)
}

func (r Rule) denyText() string {
	switch {
	case r.Kind == RuleWrite:
		return r.Path
	case r.Shell:
		return "(shell) " + Visible(r.Argv[0])
	}
	return ShellQuote(r.Argv)
}

func (r Rule) denyID() string { return "deny " + string(r.Kind) + ": " + r.denyText() }

func (r Rule) describeDeny() string {
	if r.Kind == RuleWrite {
		return "never write " + r.Path + " (refused without asking)"
	}
	return "never run `" + r.denyText() + "` (refused without asking)"
}

// CommandDenied is the saved deny rule of root that refuses a run_command
// of argv (with shell, one shell string), if one does.
func (s *Store) CommandDenied(root string, argv []string, shell bool) (Rule, bool) {
	want, err := DenyCommandRule(argv, shell)
	if err != nil {
		return Rule{}, false
	}
	return s.findAny(root, func(r Rule) bool {
		return r.Deny && r.Kind == RuleCommand && r.Shell == want.Shell && slices.Equal(r.Argv, want.Argv)
	})
}

// WriteDenied is the saved deny rule of root that refuses writing rel
// (relative to root), if one does.
func (s *Store) WriteDenied(root, rel string) (Rule, bool) {
	want, err := DenyWriteRule(rel)
	if err != nil {
		return Rule{}, false
	}
	return s.findAny(root, func(r Rule) bool { return r.Deny && r.Kind == RuleWrite && r.Path == want.Path })
}
