package config

import (
	"fmt"
	"sort"
	"strings"
)

// ExpandEnv expands ${VAR} and ${VAR:-default} in s through lookup. The
// default is used when VAR is unset or empty; "$$" is a literal "$". An
// unset ${VAR} with no default, an unterminated "${" or a bare $VAR is an
// error that names the variable and says how to write it.
func ExpandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			b.WriteByte('$')
			continue
		}
		switch next := s[i+1]; {
		case next == '$':
			b.WriteByte('$')
			i++
		case next == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("unterminated %q: write ${NAME} or ${NAME:-default} (or $$ for a literal $)", s[i:])
			}
			body := s[i+2 : i+2+end]
			name, def, hasDef := strings.Cut(body, ":-")
			if !isEnvName(name) {
				return "", fmt.Errorf("${%s}: %q is not a variable name (expected letters, digits and _, not starting with a digit)", body, name)
			}
			v, ok := lookup(name)
			switch {
			case hasDef && v == "":
				v = def
			case !ok:
				return "", fmt.Errorf("${%s} is not set: set %s in agentls's environment, or write ${%s:-default} to give a default", name, name, name)
			}
			b.WriteString(v)
			i += 2 + end
		case next == '_' || next >= 'A' && next <= 'Z' || next >= 'a' && next <= 'z':
			j := i + 1
			for j < len(s) && isEnvNameByte(s[j], j > i+1) {
				j++
			}
			name := s[i+1 : j]
			return "", fmt.Errorf("$%s is not expanded: write ${%s} to expand it, or $$%s for a literal $", name, name, name)
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), nil
}

// ExpandedEnv is the server's env with every value expanded through lookup.
// The error names the env key whose value could not be expanded.
func (s Server) ExpandedEnv(lookup func(string) (string, bool)) (map[string]string, error) {
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(s.Env))
	for _, k := range keys {
		v, err := ExpandEnv(s.Env[k], lookup)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// checkExpansion reports a syntax problem in s (unterminated "${", bad
// name, bare $VAR) without depending on what is set in the environment.
func checkExpansion(s string) error {
	_, err := ExpandEnv(s, func(string) (string, bool) { return "x", true })
	return err
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isEnvNameByte(s[i], i > 0) {
			return false
		}
	}
	return true
}

func isEnvNameByte(c byte, digitOK bool) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || digitOK && c >= '0' && c <= '9'
}

// ExpandedHeaders is a remote server's headers with every value expanded
// through lookup. The error names the header, never its value.
func (s Server) ExpandedHeaders(lookup func(string) (string, bool)) (map[string]string, error) {
	keys := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(s.Headers))
	for _, k := range keys {
		v, err := ExpandEnv(s.Headers[k], lookup)
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", k, err)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("header %s: its value, once expanded, contains a line break or NUL", k)
		}
		out[k] = v
	}
	return out, nil
}

// Remote reports whether the server is reached over HTTP (url) rather than started (command).
func (s Server) Remote() bool { return s.URL != "" }
