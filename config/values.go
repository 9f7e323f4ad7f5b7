package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The TOML library decodes a document into map[string]any holding string,
// int64, float64, bool, date-times, []any and map[string]any. These helpers
// turn such a value into what a key expects, or say what was wrong and what
// is expected.

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return "a date-time"
}

func wrongType(v any, want string) error {
	return fmt.Errorf("expected %s, got %s", want, typeName(v))
}

func asString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		if _, isNum := v.(int64); isNum {
			return "", fmt.Errorf("expected a string, got an integer (quote it: \"%d\")", v)
		}
		return "", wrongType(v, "a string")
	}
	return s, nil
}

func asBool(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, wrongType(v, "a boolean (true or false)")
	}
	return b, nil
}

func asPositiveInt(v any) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, wrongType(v, "a positive integer")
	}
	if n <= 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("expected a positive integer, got %d", n)
	}
	return int(n), nil
}

func asDuration(v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, wrongType(v, `a duration string like "30s" or "2m"`)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: expected a duration like \"30s\", \"1m30s\" or \"500ms\"", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q must be positive", s)
	}
	return d, nil
}

// asAge is a duration that may also be given in days ("30d").
func asAge(v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, wrongType(v, `an age like "30d" or "720h"`)
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("invalid age %q: expected a whole number of days like \"30d\", or a duration like \"720h\"", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := asDuration(v)
	if err != nil {
		return 0, fmt.Errorf("invalid age %q: expected a whole number of days like \"30d\", or a duration like \"720h\"", s)
	}
	return d, nil
}

func asTable(v any, hint string) (map[string]any, error) {
	t, ok := v.(map[string]any)
	if !ok {
		return nil, wrongType(v, hint)
	}
	return t, nil
}

func asStrings(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, wrongType(v, `an array of strings like ["-y", "pkg"]`)
	}
	out := make([]string, 0, len(arr))
	var bad []string
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			bad = append(bad, fmt.Sprintf("element %d is %s", i+1, typeName(e)))
			continue
		}
		out = append(out, s)
	}
	if bad != nil {
		return nil, errors.New("expected an array of strings: " + strings.Join(bad, ", ") + " (quote it)")
	}
	return out, nil
}

// displayKey renders a key path the way TOML would write it, quoting parts
// that are not bare keys: mcp.policy."github__*".
func displayKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		bare := p != ""
		for j := 0; j < len(p); j++ {
			if !isBareKeyByte(p[j]) {
				bare = false
				break
			}
		}
		if bare {
			parts[i] = p
		} else {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, ".")
}

func keyList(keys []string) string {
	return strings.Join(keys, ", ")
}
