package toolname

import (
	"regexp"
	"strings"
	"testing"
)

// toolNameRegexp is the rule as written in docs/security.md (G4), the reference the
// hand-written matcher is held to.
var toolNameRegexp = regexp.MustCompile(Pattern)

func TestValid(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want bool
	}{
		{"letters are allowed", "read_file", true},
		{"a leading underscore is allowed", "_x", true},
		{"digits and dashes after the first byte are allowed", "fs__read-file2", true},
		{"one letter is enough", "a", true},
		{"64 bytes is the longest allowed", "a" + strings.Repeat("b", 63), true},
		{"65 bytes is too long", "a" + strings.Repeat("b", 64), false},
		{"empty is refused", "", false},
		{"a leading digit is refused", "1tool", false},
		{"a leading dash is refused", "-tool", false},
		{"a dot is refused", "fs.read", false},
		{"a space is refused", "read file", false},
		{"a trailing newline is refused", "tool\n", false},
		{"a slash is refused", "a/b", false},
		{"non-ASCII letters are refused", "tööl", false},
		{"a NUL byte is refused", "to\x00ol", false},
		{"invalid UTF-8 is refused", "to\xffol", false},
		{"a colon is refused", "a:b", false},
		{"letters, digits, underscore and dash together are allowed", "a_B-9", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Valid(c.in); got != c.want {
				t.Errorf("Valid(%q) = %v, want %v", c.in, got, c.want)
			}
			if got := toolNameRegexp.MatchString(c.in); got != c.want {
				t.Errorf("regexp verdict on %q = %v, want %v (the table is wrong)", c.in, got, c.want)
			}
		})
	}
}

// FuzzValid holds the hand-written matcher to the regexp's verdicts.
func FuzzValid(f *testing.F) {
	for _, s := range []string{"", "a", "_", "-a", "0a", "a-0", "fs__read_file", "tool\n", "\xff", "é", strings.Repeat("x", 64), strings.Repeat("x", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s), toolNameRegexp.MatchString(s); got != want {
			t.Errorf("Valid(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
