package session

import (
	"encoding/json"
	"testing"
)

// objectByUnmarshal is the check isJSONObject replaces: its verdicts must
// not change.
func objectByUnmarshal(raw []byte) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}

var jsonObjectCases = []struct {
	name string
	in   string
	want bool
}{
	{"an object is accepted", `{"path":"a"}`, true},
	{"an empty object is accepted", `{}`, true},
	{"JSON whitespace around an object is accepted", " \t\r\n{\"a\":[1,{}]}\n ", true},
	{"duplicate keys are accepted as Unmarshal accepts them", `{"a":1,"a":2}`, true},
	{"an array is rejected", `[1]`, false},
	{"null is rejected", `null`, false},
	{"a string is rejected", `"{}"`, false},
	{"a number is rejected", `1`, false},
	{"empty input is rejected", ``, false},
	{"only whitespace is rejected", "  \n", false},
	{"a truncated object is rejected", `{"path":"a"`, false},
	{"trailing data after the object is rejected", `{} {}`, false},
	{"a trailing comma is rejected", `{"a":1,}`, false},
	{"non-JSON whitespace before the object is rejected", "\f{}", false},
	{"non-JSON whitespace after the object is rejected", "{}\u00a0", false},
	{"a single quote is rejected", `{'a':1}`, false},
}

func TestIsJSONObjectKeepsUnmarshalsVerdict(t *testing.T) {
	for _, tc := range jsonObjectCases {
		t.Run(tc.name, func(t *testing.T) {
			if old := objectByUnmarshal([]byte(tc.in)); old != tc.want {
				t.Fatalf("table is wrong: Unmarshal's verdict on %q is %v", tc.in, old)
			}
			if got := isJSONObject(json.RawMessage(tc.in)); got != tc.want {
				t.Errorf("isJSONObject(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzIsJSONObjectKeepsUnmarshalsVerdict(f *testing.F) {
	for _, tc := range jsonObjectCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := isJSONObject(in), objectByUnmarshal(in); got != want {
			t.Errorf("isJSONObject(%q) = %v, Unmarshal says %v", in, got, want)
		}
	})
}
