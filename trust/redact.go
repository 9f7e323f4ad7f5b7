package trust

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Redacted replaces every secret Redact, RedactJSON and RedactEnv find.
const Redacted = "[REDACTED]"

// secretShapes are values that are secrets wherever they appear. Tool
// arguments and results carry tokens; they must never reach a log, an event
// or a transcript, where anyone reading over a shoulder (or a sync) sees them.
var secretShapes = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`),
	regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{16,}`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), // OpenAI, Anthropic (sk-ant-…), sk-proj-…
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{8,}`),
	regexp.MustCompile(`\bxapp-[A-Za-z0-9-]{8,}`),
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\bnpm_[A-Za-z0-9]{30,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), // JWT: two base64 JSON objects
}

var (
	authScheme = regexp.MustCompile(`(?i)\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9._~+/=-]+`)
	urlCreds   = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+):[^/\s@]+@`)
	keyValue   = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)(["']?[ \t]*[:=][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&]+)`)
)

// Redact replaces secrets in free text: values shaped like tokens and keys
// (ghp_…, github_pat_…, sk-…, xox…-, AKIA…, JWTs, private key blocks), the
// credential after Bearer/Basic, passwords in URLs, and the value of any
// key=value or "key": value whose key is named like a secret.
func Redact(s string) string {
	for _, re := range secretShapes {
		s = re.ReplaceAllString(s, Redacted)
	}
	s = authScheme.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = urlCreds.ReplaceAllString(s, "${1}:"+Redacted+"@")
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
	for _, part := range []string{"token", "secret", "password", "passwd", "passphrase", "key", "auth", "credential", "cookie", "private", "jwt", "bearer"} {
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
