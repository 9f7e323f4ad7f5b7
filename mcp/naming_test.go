package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand"
	"strings"
	"testing"

	"github.com/agentls/agentls/mcp/toolname"
)

func TestNamespaceTool(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name         string
		server, tool string
		want         string // "" when only the properties below are checked
		wantPrefix   string
		hashed       bool
	}{
		{name: "legal name is server__tool unchanged", server: "github", tool: "list_issues", want: "github__list_issues"},
		{name: "dash and digits are kept", server: "fs-2", tool: "read-file_3", want: "fs-2__read-file_3"},
		{name: "slash and colon become underscores plus hash", server: "fs", tool: "a/b:c", wantPrefix: "fs__a_b_c_", hashed: true},
		{name: "dot and space become underscores plus hash", server: "fs", tool: "read file.v2", wantPrefix: "fs__read_file_v2_", hashed: true},
		{name: "a multi-byte rune becomes one underscore", server: "jp", tool: "ツール", wantPrefix: "jp_____", hashed: true},
		{name: "leading digit gets a leading underscore", server: "1password", tool: "get", wantPrefix: "_1password__get_", hashed: true},
		{name: "leading dash gets a leading underscore", server: "-x", tool: "get", wantPrefix: "_-x__get_", hashed: true},
		{name: "100-character name is cut to 64 with hash", server: "s", tool: long, wantPrefix: "s__xxxxxxxx", hashed: true},
		{name: "empty tool name still legal", server: "s", tool: "", want: "s__"},
		{name: "a built-in's name on a server is namespaced", server: "x", tool: "read_file", want: "x__read_file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NamespaceTool(tc.server, tc.tool)
			if !toolname.Valid(got) {
				t.Fatalf("NamespaceTool(%q, %q) = %q: not a legal tool name", tc.server, tc.tool, got)
			}
			if tc.want != "" && got != tc.want {
				t.Fatalf("NamespaceTool(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
			}
			if tc.wantPrefix != "" && !strings.HasPrefix(got, tc.wantPrefix) {
				t.Fatalf("NamespaceTool(%q, %q) = %q, want prefix %q", tc.server, tc.tool, got, tc.wantPrefix)
			}
			if tc.hashed {
				sum := sha256.Sum256([]byte(tc.server + "\x00" + tc.tool))
				h := hex.EncodeToString(sum[:])[:6]
				if !strings.HasSuffix(got, "_"+h) {
					t.Fatalf("NamespaceTool(%q, %q) = %q, want the hash suffix _%s of the original", tc.server, tc.tool, got, h)
				}
			}
			if again := NamespaceTool(tc.server, tc.tool); again != got {
				t.Fatalf("not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestAssignNames(t *testing.T) {
	long := strings.Repeat("y", 100)
	tests := []struct {
		name     string
		keys     []ToolKey
		reserved []string
		// want pins the names that must come out exactly; every other key is
		// checked for legality, distinctness and exact inversion.
		want map[ToolKey]string
	}{
		{
			name: "two servers exposing the same tool stay apart by prefix",
			keys: []ToolKey{{"a", "search"}, {"b", "search"}},
			want: map[ToolKey]string{{"a", "search"}: "a__search", {"b", "search"}: "b__search"},
		},
		{
			name:     "a name colliding with a built-in is renamed, not dropped",
			keys:     []ToolKey{{"fs", "read_file"}},
			reserved: []string{"read_file", "fs__read_file"},
		},
		{
			name: "a/b:c and a_b_c on one server stay distinct",
			keys: []ToolKey{{"fs", "a/b:c"}, {"fs", "a_b_c"}},
			want: map[ToolKey]string{{"fs", "a_b_c"}: "fs__a_b_c"},
		},
		{
			name: "server a tool b__c and server a__b tool c collide and are split",
			keys: []ToolKey{{"a", "b__c"}, {"a__b", "c"}},
			want: map[ToolKey]string{{"a", "b__c"}: "a__b__c"},
		},
		{
			name: "two 100-character names sharing a long prefix stay distinct",
			keys: []ToolKey{{"s", long + "1"}, {"s", long + "2"}},
		},
		{
			name: "a plain name equal to another tool's hashed name is renamed",
			keys: []ToolKey{{"x", "y/z"}, {"x", strings.TrimPrefix(NamespaceTool("x", "y/z"), "x__")}},
		},
		{
			name: "duplicate keys get one name",
			keys: []ToolKey{{"a", "t"}, {"a", "t"}},
			want: map[ToolKey]string{{"a", "t"}: "a__t"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AssignNames(tc.keys, tc.reserved)
			checkAssignment(t, tc.keys, tc.reserved, got)
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("name of %v = %q, want %q", k, got[k], w)
				}
			}
		})
	}
}

// checkAssignment states the invariants every assignment must keep: all
// keys named, every name legal, none reserved, none shared, exact inverse.
func checkAssignment(t *testing.T, keys []ToolKey, reserved []string, got map[ToolKey]string) {
	t.Helper()
	back := map[string]ToolKey{}
	for _, k := range keys {
		name, ok := got[k]
		if !ok {
			t.Fatalf("key %v was dropped", k)
		}
		if !toolname.Valid(name) {
			t.Errorf("name %q of %v is not legal", name, k)
		}
		for _, r := range reserved {
			if name == r {
				t.Errorf("name %q of %v takes a reserved name", name, k)
			}
		}
		if prev, ok := back[name]; ok && prev != k {
			t.Errorf("name %q given to both %v and %v", name, prev, k)
		}
		back[name] = k
	}
	for name, k := range back {
		if got[k] != name {
			t.Errorf("map back of %q is %v whose name is %q", name, k, got[k])
		}
	}
}

func TestAssignNamesIgnoresInputOrder(t *testing.T) {
	keys := []ToolKey{
		{"a", "b__c"}, {"a__b", "c"}, {"fs", "read_file"}, {"fs", "a/b:c"}, {"fs", "a_b_c"},
		{"s", strings.Repeat("z", 90) + "1"}, {"s", strings.Repeat("z", 90) + "2"}, {"x", "search"}, {"y", "search"},
	}
	reserved := []string{"read_file", "fs__read_file"}
	first := AssignNames(keys, reserved)
	checkAssignment(t, keys, reserved, first)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		shuffled := append([]ToolKey(nil), keys...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got := AssignNames(shuffled, reserved)
		for _, k := range keys {
			if got[k] != first[k] {
				t.Fatalf("order changed the name of %v: %q vs %q", k, got[k], first[k])
			}
		}
	}
}
