package trust

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/config"
)

// ShellQuote renders argv so it could be pasted into a POSIX shell and run
// the same argv. Words with control or invisible characters (newlines,
// terminal escapes, bidi overrides) use $'…' escapes, so a card can never
// hide part of a command or fake a line of its own.
func ShellQuote(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quoteWord(a, i == 0)
	}
	return strings.Join(words, " ")
}

func quoteWord(s string, first bool) string {
	if s == "" {
		return "''"
	}
	if !printable(s) {
		return ansiC(s)
	}
	plain := true
	for _, r := range s {
		if !(r < utf8.RuneSelf && (isAlnum(byte(r)) || strings.ContainsRune("_@%+=:,./-", r))) {
			plain = false
			break
		}
	}
	// A first word with '=' would be read as a variable assignment.
	if plain && !(first && strings.Contains(s, "=")) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// printable is false for invalid UTF-8, control characters and invisible
// formatting characters (zero-width, bidi overrides).
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// ansiC quotes s as $'…' with every non-printable byte or rune escaped.
func ansiC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Cf, r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// shown is s as is when every character is visible, else quoted.
func shown(s string) string {
	if s != "" && printable(s) {
		return s
	}
	return quoteWord(s, false)
}

// LaunchCard is the literal text of a launch approval for a server: the
// quoted argv, every env pair as written, the cwd. Never summarized: the
// consent is for exactly what the card shows (a card that elided env would
// let NODE_OPTIONS=--require … through). The CLI and the editor cards both
// use it.
func LaunchCard(s config.Server) (title, detail string) {
	from := s.Source.File
	if s.WorkspaceRoot != "" && from != "" {
		if rel, err := filepath.Rel(s.WorkspaceRoot, from); err == nil && !strings.HasPrefix(rel, "..") {
			from = rel
		}
	}
	if from == "" {
		from = "(unknown file)"
	}
	title = fmt.Sprintf("Start MCP server '%s' from %s?", shown(s.Name), shown(from))

	var b strings.Builder
	if s.Remote() {
		title = fmt.Sprintf("Connect to remote MCP server '%s' from %s?", shown(s.Name), shown(from))
		remoteCard(&b, s)
		return title, b.String()
	}
	fmt.Fprintf(&b, "command: %s\n", ShellQuote(append([]string{s.Command}, s.Args...)))
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	switch {
	case len(keys) == 0 && s.Origin == config.User:
		b.WriteString("env:     (none added; a user-tier server inherits agentls's environment)\n")
	case len(keys) == 0:
		b.WriteString("env:     (none besides the minimal base: PATH, HOME, USER, LANG, TERM, TMPDIR, SHELL)\n")
	case s.Origin == config.Editor:
		// config.AddEditorServers made every value literal: show it as
		// the server will get it.
		b.WriteString("env:     (as the editor passed them, nothing expanded)\n")
		for _, k := range keys {
			v, _ := config.ExpandEnv(s.Env[k], func(string) (string, bool) { return "", false })
			fmt.Fprintf(&b, "  %s=%s\n", quoteWord(k, true), quoteWord(v, false))
		}
	default:
		b.WriteString("env:     (as written; ${VAR} is expanded from agentls's environment at start)\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s=%s\n", quoteWord(k, true), quoteWord(s.Env[k], false))
		}
	}
	if vars := envReferences(s.Env); len(vars) > 0 {
		// Stops a repo from reading an API key the minimal environment keeps from it, unnoticed.
		fmt.Fprintf(&b, "passes these variables' values from agentls's environment: %s\n", shown(strings.Join(vars, ", ")))
	}
	fmt.Fprintf(&b, "cwd:     %s\n", quoteWord(s.Cwd, false))
	// What the kernel will let it touch; without Landlock, that it would
	// run with the user's full access.
	fmt.Fprintf(&b, "sandbox: %s\n", Visible(Confinement(s, "").Summary()))
	if OffersChoices(s) {
		// Where the entry cannot say (ACP has no key for it), the user
		// picks, seeing exactly what each choice lets the server touch.
		b.WriteString("choices: (the entry does not say how to confine it; what you pick is remembered for exactly this command line)\n")
		for _, c := range LaunchChoices(s) {
			sum := "as the sandbox line says"
			if c != ChoiceConfined {
				sum = Visible(Confinement(c.Apply(s), "").Summary())
			}
			fmt.Fprintf(&b, "  %s: %s\n", c.Label(), sum)
		}
	}
	if s.Origin != config.User && s.WorkspaceRoot != "" {
		// The fingerprint pins the command line, not the bytes of what it runs.
		switch {
		case within(s.WorkspaceRoot, programPath(s.Command, s.Cwd)) || pathInside(s):
			b.WriteString("note:    this runs a program inside the workspace; the repository can change it without a new approval\n")
		case within(s.WorkspaceRoot, s.Cwd):
			b.WriteString("note:    this runs in the workspace, so npx, node, python and the like may load code from it (node_modules, a venv) that the repository can change without a new approval\n")
		}
	}
	fmt.Fprintf(&b, "from:    %s\n", shown(s.Source.String()))
	if s.WorkspaceRoot != "" {
		fmt.Fprintf(&b, "for:     the workspace %s only\n", shown(s.WorkspaceRoot))
	}
	fmt.Fprintf(&b, "sha256:  %s (any change to command, args, env, cwd, sandbox or network asks again)", ServerFingerprint(s))
	return title, b.String()
}

// remoteCard is the body of a remote server's card: the URL, each header's
// name with the variables its value reads (never a value: a literal one
// may be a token), which secrets leave the machine and to which host.
func remoteCard(b *strings.Builder, s config.Server) {
	fmt.Fprintf(b, "url:     %s\n", quoteWord(s.URL, false))
	host := s.URL
	if u, err := url.Parse(s.URL); err == nil {
		host = u.Scheme + "://" + u.Host
	}
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		b.WriteString("headers: (none)\n")
	} else {
		b.WriteString("headers: (values not shown; ${VAR} is expanded from agentls's environment at connect time)\n")
		for _, k := range names {
			vars := envReferences(map[string]string{k: s.Headers[k]})
			switch {
			case len(vars) > 0:
				fmt.Fprintf(b, "  %s: reads %s\n", quoteWord(k, true), shown(strings.Join(vars, ", ")))
			default:
				fmt.Fprintf(b, "  %s: a fixed value written in the config\n", quoteWord(k, true))
			}
		}
	}
	if vars := envReferences(s.Headers); len(vars) > 0 {
		// Stops a repo from sending a user's token to a host of its choosing unnoticed.
		fmt.Fprintf(b, "sends these variables' values from agentls's environment to %s: %s\n", shown(host), shown(strings.Join(vars, ", ")))
	}
	if s.OAuthClientID != "" {
		fmt.Fprintf(b, "oauth:   pre-registered client %s", shown(s.OAuthClientID))
		if s.OAuthClientSecretEnv != "" {
			fmt.Fprintf(b, ", its secret read from %s and sent to the server's authorization server", shown(s.OAuthClientSecretEnv))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "only to: %s (headers are never sent to another origin, redirects included)\n", shown(host))
	fmt.Fprintf(b, "from:    %s\n", shown(s.Source.String()))
	if s.WorkspaceRoot != "" {
		fmt.Fprintf(b, "for:     the workspace %s only\n", shown(s.WorkspaceRoot))
	}
	fmt.Fprintf(b, "sha256:  %s (any change to the url, a header name or the variables a header reads asks again)", ServerFingerprint(s))
}

// envReferences lists the variables that env values read from agentls's
// environment through ${VAR} or ${VAR:-default}, sorted and unique.
func envReferences(env map[string]string) []string {
	seen := map[string]bool{}
	for _, v := range env {
		// Only the names are wanted; config already reported malformed values.
		_, _ = config.ExpandEnv(v, func(name string) (string, bool) {
			seen[name] = true
			return "x", true
		})
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// programPath is where a command with a slash runs from (relative to cwd,
// as the spawner resolves it); "" for a bare name found on PATH.
func programPath(command, cwd string) string {
	if !strings.Contains(command, "/") {
		return ""
	}
	if !filepath.IsAbs(command) {
		command = filepath.Join(cwd, command)
	}
	return filepath.Clean(command)
}

// pathInside reports whether a bare command may be found through a
// declared PATH entry inside the workspace (PATH = "/repo/bin:/usr/bin").
func pathInside(s config.Server) bool {
	p, ok := s.Env["PATH"]
	if !ok || strings.Contains(s.Command, "/") {
		return false
	}
	for _, dir := range filepath.SplitList(p) {
		if filepath.IsAbs(dir) && within(s.WorkspaceRoot, dir) {
			return true
		}
	}
	return false
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	if p == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
