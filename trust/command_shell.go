package trust

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shellMeta names what each shell metacharacter would do. Any of them
// outside single quotes flags the command: the classifier does not try to
// understand pipelines, redirections or expansions, it refuses to call them
// safe (`curl … | sh`, `> ~/.bashrc`, `$(…)` and backticks all start here).
var shellMeta = map[rune]string{
	'|':  "pipes output into another command (`… | sh` runs whatever arrives)",
	';':  "chains several commands",
	'&':  "chains commands or runs one in the background",
	'>':  "redirects output over a file",
	'<':  "redirects a file into the command",
	'$':  "expands a variable or runs a command substitution $(…)",
	'`':  "runs a command substitution (backticks)",
	'(':  "opens a subshell or a pattern",
	')':  "closes a subshell or a pattern",
	'{':  "uses brace expansion or a command group",
	'}':  "uses brace expansion or a command group",
	'*':  "uses a glob, so the real arguments are unknown",
	'?':  "uses a glob, so the real arguments are unknown",
	'[':  "uses a glob or a test, so the real arguments are unknown",
	']':  "uses a glob or a test, so the real arguments are unknown",
	'~':  "expands the home directory",
	'!':  "uses history expansion or negation",
	'#':  "contains a comment that hides part of the line",
	'\\': "uses a backslash escape",
	'\n': "runs several lines",
	'\r': "contains a carriage return that can hide part of the line",
}

// splitShell splits a shell string into words the way sh would for the one
// subset it accepts: plain words, '…' literals and "…" without expansions.
// Everything else is reported, never interpreted.
func splitShell(s string) (words []string, reasons []string) {
	seen := map[string]bool{}
	flag := func(r string) {
		if !seen[r] {
			seen[r] = true
			reasons = append(reasons, r)
		}
	}
	if !utf8.ValidString(s) {
		flag("is not valid UTF-8")
	}
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ' || r == '\t':
			end()
		case r == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				flag("has an unterminated ' quote")
				return words, reasons
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			size = j + 2
		case r == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				flag("has an unterminated \" quote")
				return words, reasons
			}
			inner := s[i+1 : i+1+j]
			for _, c := range inner {
				if c == '$' || c == '`' || c == '\\' || c == '!' {
					flag(fmt.Sprintf("%s (inside double quotes)", shellMeta[c]))
				}
			}
			cur.WriteString(inner)
			inWord = true
			size = j + 2
		case r == '~' && inWord && !strings.HasSuffix(cur.String(), "=") && !strings.HasSuffix(cur.String(), ":"):
			cur.WriteRune(r) // HEAD~1: only a leading ~ (or one after = or :) expands
		case shellMeta[r] != "":
			flag(shellMeta[r])
			cur.WriteRune(r)
			inWord = true
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			flag(fmt.Sprintf("contains the invisible character %U", r))
			cur.WriteRune(r)
			inWord = true
		default:
			cur.WriteRune(r)
			inWord = true
		}
		i += size
	}
	end()
	return words, reasons
}
