package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
)

// Redacted replaces every secret Redact, RedactJSON and RedactEnv find.
const Redacted = "[REDACTED]"

// privateKey is a PEM private key block, to its END line or the end of
// the text: the one secret shape that spans lines.
var privateKey = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`)

// secretShapes are values that are secrets wherever they appear. Tool
// arguments and results carry tokens; they must never reach a log, an event
// or a transcript, where anyone reading over a shoulder (or a sync) sees them.
// Each comes with literals one of which any match contains: a line without
// them is not searched.
var secretShapes = []struct {
	re   *regexp.Regexp
	lits []string
}{
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}`), []string{"gh"}},
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{16,}`), []string{"github_pat_"}},
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), []string{"sk-"}}, // OpenAI, Anthropic (sk-ant-…), sk-proj-…
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{8,}`), []string{"xox"}},
	{regexp.MustCompile(`\bxapp-[A-Za-z0-9-]{8,}`), []string{"xapp-"}},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), []string{"AKIA", "ASIA"}},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), []string{"AIza"}},
	{regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{16,}`), []string{"glpat-"}},
	{regexp.MustCompile(`\bnpm_[A-Za-z0-9]{30,}`), []string{"npm_"}},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), []string{"eyJ"}}, // JWT: two base64 JSON objects
}

var (
	authScheme = regexp.MustCompile(`(?i)\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9._~+/=-]+`)
	urlCreds   = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+):[^/\s@]+@`)
	keyValue   = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)(["']?[ \t]*[:=][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&]+)`)
)

// authWords are authScheme's words; secretKeyParts are what secretKey looks
// for. Both are matched without regard to case.
var (
	authWords      = []string{"bearer", "basic", "token", "digest"}
	secretKeyParts = []string{"token", "secret", "password", "passwd", "passphrase", "key", "auth", "credential", "cookie", "private", "jwt", "bearer",
		"mcp-param-"} // MCP 2026-07-28's headers that carry a tool call's arguments
)

// Redact replaces secrets in free text: values shaped like tokens and keys
// (ghp_…, github_pat_…, sk-…, xox…-, AKIA…, JWTs, private key blocks), the
// credential after Bearer/Basic, passwords in URLs, and the value of any
// key=value or "key": value whose key is named like a secret.
//
// Its work is linear in the text: apart from private key blocks, no secret
// spans a line (a credential after "Bearer" may start on the next one:
// such lines are taken together), so each line is searched on its own, and
// only for the shapes whose literals it contains.
func Redact(s string) string {
	out, _ := redact(context.Background(), s)
	return out
}

// RedactContext is Redact for texts that may be huge (a prompt): it stops
// with ctx's error when ctx ends, checking every 64 KB.
func RedactContext(ctx context.Context, s string) (string, error) {
	return redact(ctx, s)
}

// redactCheck is how much text redact goes through between looks at ctx.
const redactCheck = 64 << 10

func redact(ctx context.Context, s string) (string, error) {
	// Only a context that can end is looked at (Background's Err is cheap
	// but the check is skipped outright for it).
	cancellable := ctx.Done() != nil
	if cancellable && ctx.Err() != nil {
		return "", ctx.Err()
	}
	if strings.Contains(s, "-----BEGIN") {
		s = privateKey.ReplaceAllString(s, Redacted)
	}
	var b strings.Builder
	changed := false
	checked := 0
	for start := 0; start < len(s); {
		end := lineEnd(s, start)
		// A line ending in an auth word may have its credential on a later
		// one (`\s+` spans newlines, blank lines too): keep them together.
		for pending := endsWithAuthWord(s[start:end]); pending && end < len(s); {
			next := lineEnd(s, end)
			if line := s[end:next]; strings.TrimSpace(line) != "" {
				pending = endsWithAuthWord(line)
			}
			end = next
		}
		seg := s[start:end]
		r := redactLine(seg)
		if r != seg && !changed {
			changed = true
			b.Grow(len(s))
			b.WriteString(s[:start])
		}
		if changed {
			b.WriteString(r)
		}
		start = end
		if cancellable && start-checked >= redactCheck {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			checked = start
		}
	}
	if !changed {
		return s, nil
	}
	return b.String(), nil
}

// lineEnd is the index just past the newline that ends the line starting
// at i (or len(s)).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// endsWithAuthWord reports whether seg, without its trailing white space,
// ends in one of authWords.
func endsWithAuthWord(seg string) bool {
	t := strings.TrimRightFunc(seg, unicode.IsSpace)
	for _, w := range authWords {
		if len(t) >= len(w) && strings.EqualFold(t[len(t)-len(w):], w) {
			return true
		}
	}
	return false
}

// foldSet is a set of lower-case ASCII words, found in any case.
type foldSet struct {
	words []string
	first [256]bool // the first letters of words, both cases
}

func newFoldSet(words []string) *foldSet {
	f := &foldSet{words: words}
	for _, w := range words {
		f.first[w[0]], f.first[w[0]-'a'+'A'] = true, true
	}
	return f
}

var authFold, keyFold = newFoldSet(authWords), newFoldSet(secretKeyParts)

// containsFold reports whether s contains any of f's words in any case, in
// one pass over s.
func containsFold(s string, f *foldSet) bool {
	first, words := &f.first, f.words
	for i := 0; i < len(s); i++ {
		if !first[s[i]] {
			continue
		}
		for _, w := range words {
			if len(s)-i >= len(w) && s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

// redactLine applies every line-bound rule, in Redact's order, to one line
// (or a few, kept together for an auth word).
func redactLine(s string) string {
	for _, sh := range secretShapes {
		for _, lit := range sh.lits {
			if strings.Contains(s, lit) {
				s = sh.re.ReplaceAllString(s, Redacted)
				break
			}
		}
	}
	if containsFold(s, authFold) {
		s = authScheme.ReplaceAllString(s, "${1}${2}"+Redacted)
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = urlCreds.ReplaceAllString(s, "${1}:"+Redacted+"@")
	}
	if !strings.ContainsAny(s, ":=") || !containsFold(s, keyFold) {
		return s
	}
	return keyValue.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyValue.FindStringSubmatch(m)
		key, sep, val := sub[1], sub[2], sub[3]
		if !secretKey(key) || strings.Contains(val, Redacted) || authSchemeWord(val) {
			return m
		}
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') {
			return key + sep + val[:1] + Redacted + val[:1]
		}
		return key + sep + Redacted
	})
}

// RedactArgv redacts a command line for display (server lists, doctor,
// issue reports; never a launch card): every argument as Redact does, and
// the whole argument after a flag named like a secret ("--api-key VALUE",
// "-token VALUE", "--password VALUE"), which has no shape to be found by.
func RedactArgv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if i > 0 && secretFlag(argv[i-1]) && !strings.HasPrefix(a, "-") {
			out[i] = Redacted
			continue
		}
		out[i] = Redact(a)
	}
	return out
}

// secretFlag is "-x"/"--x" with no "=value" whose name names a secret.
func secretFlag(arg string) bool {
	name := strings.TrimLeft(arg, "-")
	return name != arg && name != "" && !strings.Contains(name, "=") && secretKey(name)
}

func authSchemeWord(v string) bool {
	switch strings.ToLower(strings.Trim(v, `"'`)) {
	case "bearer", "basic", "token", "digest":
		return true
	}
	return false
}

// secretKey reports whether a key, variable or header name names a secret.
// It over-matches on purpose ("keys", "monkey"): a redacted non-secret costs
// nothing, a logged secret cannot be taken back. "author" is not "auth".
func secretKey(name string) bool {
	k := strings.ToLower(name)
	if strings.Contains(k, "author") && !strings.Contains(k, "authoriz") {
		k = strings.ReplaceAll(k, "author", "")
	}
	for _, part := range secretKeyParts {
		if strings.Contains(k, part) {
			return true
		}
	}
	return false
}

// countKey is a key whose numeric value is a count of model tokens, not a token.
func countKey(name string) bool {
	k := strings.ToLower(name)
	return strings.HasSuffix(k, "tokens") || strings.Contains(k, "token_count") || strings.Contains(k, "tokencount")
}

// RedactJSON replaces secrets in a JSON document: the value of every key
// named like a secret (whole objects and arrays included), {"name": SECRET,
// "value": …} pairs, and secret-shaped text in every string. Booleans, nulls
// and token counts are kept. Keys come out sorted. A document that is not
// JSON is redacted as text.
func RedactJSON(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return []byte(Redact(string(raw)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redactValue(v)); err != nil {
		return []byte(Redact(string(raw)))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return Redact(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
		return x
	case map[string]any:
		// {"name": "GITHUB_TOKEN", "value": "…"}: env lists and headers as objects.
		for _, nameKey := range []string{"name", "key", "Name", "Key"} {
			if n, ok := x[nameKey].(string); ok && secretKey(n) {
				for _, valKey := range []string{"value", "Value"} {
					if _, ok := x[valKey]; ok {
						x[valKey] = Redacted
					}
				}
			}
		}
		for k, val := range x {
			if secretKey(k) && secretValue(k, val) {
				x[k] = Redacted
				continue
			}
			x[k] = redactValue(val)
		}
		return x
	}
	return v
}

// secretValue reports whether the value under a secret-named key is redacted.
func secretValue(key string, v any) bool {
	switch x := v.(type) {
	case nil, bool:
		return false
	case json.Number:
		return !countKey(key)
	case string:
		return x != ""
	}
	return true
}

// RedactEnv returns env pairs with secret values replaced: a value under a
// secret-named variable, unless it is only a ${VAR} reference (which names a
// variable and holds nothing), and secret-shaped text in any value.
func RedactEnv(pairs [][2]string) [][2]string {
	out := make([][2]string, len(pairs))
	for i, p := range pairs {
		out[i] = p
		switch {
		case p[1] == "" || envReference.MatchString(p[1]):
		case secretKey(p[0]):
			out[i][1] = Redacted
		default:
			out[i][1] = Redact(p[1])
		}
	}
	return out
}

var envReference = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)
