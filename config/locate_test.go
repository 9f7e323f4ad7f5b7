package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestLocateKeys(t *testing.T) {
	src := `# [not.a.header] in a comment
top = "a = [ 'b' ] # not a comment"
[a]
x = 1979-05-27 07:32:00Z
s = """
[fake.header]
fake = 1
"""
l = '''
[also.fake] '''
"quoted key" = 1
'lit.key' = { in1 = 1, "in 2" = [1, 2, {deep = true}] }
arr = [
  # [comment.in.array]
  "x",
]
[[arr2]]
v = 1
[b . c]
d.e = 'x'
`
	want := map[string]int{
		"top":                 2,
		"a":                   3,
		"a.x":                 4,
		"a.s":                 5,
		"a.l":                 9,
		"a.quoted key":        11,
		"a.lit.key":           12,
		"a.lit.key.in1":       12,
		"a.lit.key.in 2":      12,
		"a.arr":               13,
		"arr2":                17,
		"arr2.v":              18,
		"b":                   19,
		"b.c":                 19,
		"b.c.d":               20,
		"b.c.d.e":             20,
		"fake":                0,
		"fake.header":         0,
		"also":                0,
		"not":                 0,
		"comment":             0,
		"a.lit.key.in 2.deep": 12,
	}
	got := locateKeys([]byte(src))
	for k, line := range want {
		path := strings.Split(k, ".")
		switch k {
		case "a.quoted key":
			path = []string{"a", "quoted key"}
		case "a.lit.key", "a.lit.key.in1", "a.lit.key.in 2", "a.lit.key.in 2.deep":
			path = append([]string{"a", "lit.key"}, strings.Split(k, ".")[3:]...)
		}
		if l, ok := got[pathKey(path)]; l != line || (line == 0 && ok) {
			t.Errorf("line of %q = %d (present %v); want %d", path, l, ok, line)
		}
	}
}

func TestLocateKeysFallsBackToAncestor(t *testing.T) {
	kl := locateKeys([]byte("[mcp.servers.x]\ncommand = \"a\"\n"))
	if got := kl.line([]string{"mcp", "servers", "x", "nope"}); got != 1 {
		t.Errorf("line of an unrecorded key = %d; want its table's line 1", got)
	}
	if got := kl.line([]string{"other"}); got != 0 {
		t.Errorf("line of an unknown key = %d; want 0", got)
	}
}

// FuzzLocateKeys: on any document the TOML library accepts, the scanner
// ends, never panics, and finds every top-level key the library found.
func FuzzLocateKeys(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.toml")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("a = \"\"\"x\"\"\"\"\"\nb = '''y'''''\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		data := map[string]any{}
		if _, err := toml.Decode(string(src), &data); err != nil {
			return
		}
		lines := locateKeys(src)
		for k := range data {
			if lines.line([]string{k}) == 0 {
				t.Errorf("key %q not located in %q", k, src)
			}
		}
	})
}

// The scanner also ends on documents the library rejects (it is never run on
// them, but a bug elsewhere must not turn into a hang or a panic).
func TestLocateKeysSurvivesBrokenInput(t *testing.T) {
	for _, src := range []string{`a = "x\`, `"k\`, `a = """\`, `[`, `a = {`, `a = [`, `= = =`, `a.`, `'`, "a = '''", "x = 1979-05-27 "} {
		locateKeys([]byte(src))
	}
}
