package model

import (
	"encoding/json"
	"testing"
)

// objectOrEmptyByDecoding is what objectOrEmpty did before it checked
// without decoding: the reference it must agree with.
func objectOrEmptyByDecoding(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{}`)
	}
	return raw
}

func TestObjectOrEmptyKeepsObjectsOnlyAsDecodingWould(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{}`, `{"a":1}`, " \t\r\n{\"a\":1} \n", `{"a":{"b":[1,2,{"c":null}]}}`,
		`null`, ` null `, `[]`, `[{"a":1}]`, `"x"`, `"{}"`, `1`, `true`,
		`{`, `{"a":}`, `{"a":1`, `{"a":1}x`, `{"a":1} {}`, `{} []`, `{"a":1,}`, `{'a':1}`,
		"{\"a\":\"\xff\"}", `{"a":"\u00e9"}`, `{"a":"\ud800"}`, `{"a":1,"a":2}`, "\x00{}", `{"a":1e400}`,
	} {
		got, want := string(objectOrEmpty(json.RawMessage(in))), string(objectOrEmptyByDecoding(json.RawMessage(in)))
		if got != want {
			t.Errorf("objectOrEmpty(%q) = %q, decoding gives %q", in, got, want)
		}
	}
}

func FuzzObjectOrEmptyAgreesWithDecoding(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `null`, `[]`, `{"a":1}x`, ` {"a":"b"} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := string(objectOrEmpty(json.RawMessage(in))), string(objectOrEmptyByDecoding(json.RawMessage(in))); got != want {
			t.Errorf("objectOrEmpty(%q) = %q, decoding gives %q", in, got, want)
		}
	})
}

// One call's arguments, as every request sends each of the history's
// calls again.
func BenchmarkObjectOrEmpty(b *testing.B) {
	raw := json.RawMessage(`{"path":"internal/bench/measure_peers_test.go","old_text":"func peers(b *testing.B)","new_text":"func peers(tb testing.TB)","replace_all":false}`)
	b.ReportAllocs()
	for b.Loop() {
		objectOrEmpty(raw)
	}
}
