package trust

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/agentls/agentls/config"
)

type launch struct {
	command string
	args    []string
	env     map[string]string
	cwd     string
}

func (l launch) fingerprint() string { return Fingerprint(l.command, l.args, l.env, l.cwd) }

// TestFingerprintDistinguishes pins the cases where a careless encoding
// collides: each pair runs something different, so each must differ.
func TestFingerprintDistinguishes(t *testing.T) {
	base := launch{command: "npx", args: []string{"-y", "server"}, env: map[string]string{"A": "1"}, cwd: "/repo"}
	tests := []struct {
		name string
		a, b launch
	}{
		{"env key=value split moves the equals sign",
			launch{command: "x", env: map[string]string{"a": "b=c"}},
			launch{command: "x", env: map[string]string{"a=b": "c"}}},
		{"one arg with a space is not two args",
			launch{command: "x", args: []string{"a b"}},
			launch{command: "x", args: []string{"a", "b"}}},
		{"boundary between command and args",
			launch{command: "npx -y", args: []string{"server"}},
			launch{command: "npx", args: []string{"-y", "server"}}},
		{"empty arg is an arg",
			launch{command: "x", args: []string{""}},
			launch{command: "x"}},
		{"arg moved into env",
			launch{command: "x", args: []string{"A", "1"}},
			launch{command: "x", env: map[string]string{"A": "1"}}},
		{"args boundary with cwd",
			launch{command: "x", args: []string{"a"}, cwd: ""},
			launch{command: "x", cwd: "a"}},
		{"added NODE_OPTIONS is code execution",
			base,
			launch{command: base.command, args: base.args, env: map[string]string{"A": "1", "NODE_OPTIONS": "--require /tmp/evil.js"}, cwd: base.cwd}},
		{"changed env value",
			base,
			launch{command: base.command, args: base.args, env: map[string]string{"A": "2"}, cwd: base.cwd}},
		{"changed cwd",
			base,
			launch{command: base.command, args: base.args, env: base.env, cwd: "/repo/sub"}},
		{"changed command",
			base,
			launch{command: "sh", args: base.args, env: base.env, cwd: base.cwd}},
		{"args reordered",
			launch{command: "x", args: []string{"a", "b"}},
			launch{command: "x", args: []string{"b", "a"}}},
		{"env value carrying a second pair",
			launch{command: "x", env: map[string]string{"A": "1\x00B\x001"}},
			launch{command: "x", env: map[string]string{"A": "1", "B": "1"}}},
		{"length prefix bytes inside a string",
			launch{command: "x\x01y"},
			launch{command: "x", args: []string{"y"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.a.fingerprint() == tt.b.fingerprint() {
				t.Fatalf("%+v and %+v share fingerprint %s", tt.a, tt.b, tt.a.fingerprint())
			}
		})
	}
}

func TestFingerprintIsStable(t *testing.T) {
	t.Run("env in another key order is the same launch", func(t *testing.T) {
		a := map[string]string{}
		b := map[string]string{}
		keys := []string{"Z", "A", "M", "NODE_OPTIONS", "b", "a"}
		for i, k := range keys {
			a[k] = k + "v"
			b[keys[len(keys)-1-i]] = keys[len(keys)-1-i] + "v"
		}
		// Maps iterate in random order: compare many times.
		want := Fingerprint("x", nil, a, "/r")
		for range 50 {
			if got := Fingerprint("x", nil, b, "/r"); got != want {
				t.Fatalf("same env, different fingerprint: %s vs %s", got, want)
			}
		}
	})
	t.Run("nil and empty lists run the same thing", func(t *testing.T) {
		if Fingerprint("x", nil, nil, "") != Fingerprint("x", []string{}, map[string]string{}, "") {
			t.Fatal("nil and empty args/env differ")
		}
	})
	t.Run("ServerFingerprint uses env as written", func(t *testing.T) {
		s := config.Server{Command: "x", Args: []string{"a"}, Env: map[string]string{"T": "${TOKEN}"}, Cwd: "/r"}
		if ServerFingerprint(s) != Fingerprint("x", []string{"a"}, map[string]string{"T": "${TOKEN}"}, "/r") {
			t.Fatal("ServerFingerprint differs from Fingerprint of the same fields")
		}
	})
	t.Run("is hex sha-256", func(t *testing.T) {
		if fp := Fingerprint("x", nil, nil, ""); len(fp) != 64 {
			t.Fatalf("fingerprint %q is not 64 hex digits", fp)
		}
	})
}

// decodeLaunch inverts encodeLaunch. That a decoder exists which returns
// exactly the input is the proof that the encoding is injective.
func decodeLaunch(b []byte) (launch, error) {
	var l launch
	next := func() (string, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return "", errors.New("bad length")
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, nil
	}
	count := func() (int, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) {
			return 0, errors.New("bad count")
		}
		b = b[k:]
		return int(n), nil
	}
	dom, err := next()
	if err != nil || dom != fingerprintDomain {
		return l, errors.New("bad domain")
	}
	if l.command, err = next(); err != nil {
		return l, err
	}
	n, err := count()
	if err != nil {
		return l, err
	}
	for range n {
		a, err := next()
		if err != nil {
			return l, err
		}
		l.args = append(l.args, a)
	}
	if n, err = count(); err != nil {
		return l, err
	}
	for range n {
		k, err := next()
		if err != nil {
			return l, err
		}
		v, err := next()
		if err != nil {
			return l, err
		}
		if l.env == nil {
			l.env = map[string]string{}
		}
		l.env[k] = v
	}
	if l.cwd, err = next(); err != nil {
		return l, err
	}
	if len(b) != 0 {
		return l, errors.New("trailing bytes")
	}
	return l, nil
}

// launchFromFuzz builds a launch from fuzz strings: args and env are split
// on a separator byte so the fuzzer explores list boundaries too.
func launchFromFuzz(command, args, env, cwd string) launch {
	l := launch{command: command, cwd: cwd}
	if args != "" {
		l.args = splitOn(args, 0x1f)
	}
	if env != "" {
		parts := splitOn(env, 0x1f)
		l.env = map[string]string{}
		for i := 0; i+1 < len(parts); i += 2 {
			l.env[parts[i]] = parts[i+1]
		}
	}
	return l
}

func splitOn(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func sameLaunch(a, b launch) bool {
	norm := func(l launch) launch {
		if len(l.args) == 0 {
			l.args = nil
		}
		if len(l.env) == 0 {
			l.env = nil
		}
		return l
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// FuzzFingerprintEncoding searches for two different launches with one
// encoding: it checks that the encoding round-trips (so it is injective) and
// that two fuzzed launches with equal encodings are equal. The seed corpus
// runs in every plain `go test`.
func FuzzFingerprintEncoding(f *testing.F) {
	f.Add("x", "a\x1fb", "a\x1fb=c", "", "x", "a b", "a=b\x1fc", "")
	f.Add("npx -y", "server", "", "/r", "npx", "-y\x1fserver", "", "/r")
	f.Add("x", "", "NODE_OPTIONS\x1f--require /tmp/e.js", "/r", "x", "", "", "/r")
	f.Add("\x01", "\x00", "\xff\x1f\xfe", "\x02", "\x01\x00", "", "\xfe\x1f\xff", "\x02")
	f.Add("x", "\x05hello", "", "", "x\x05hello", "", "", "")
	f.Fuzz(func(t *testing.T, c1, a1, e1, w1, c2, a2, e2, w2 string) {
		l1 := launchFromFuzz(c1, a1, e1, w1)
		l2 := launchFromFuzz(c2, a2, e2, w2)
		enc1 := encodeLaunch(l1.command, l1.args, l1.env, l1.cwd)
		enc2 := encodeLaunch(l2.command, l2.args, l2.env, l2.cwd)
		back, err := decodeLaunch(enc1)
		if err != nil {
			t.Fatalf("encoding of %+v does not decode: %v", l1, err)
		}
		if !sameLaunch(back, l1) {
			t.Fatalf("encoding does not round-trip: %+v became %+v", l1, back)
		}
		if string(enc1) == string(enc2) && !sameLaunch(l1, l2) {
			t.Fatalf("different launches share an encoding: %+v and %+v", l1, l2)
		}
		if (l1.fingerprint() == l2.fingerprint()) != sameLaunch(l1, l2) {
			t.Fatalf("fingerprint equality disagrees with launch equality: %+v vs %+v", l1, l2)
		}
	})
}

// TestFingerprintCoversSandbox: a repository that loosens its server's
// confinement (sandbox = "none", network = true) gets a new fingerprint,
// so the approval of the confined launch does not carry over; an entry
// that writes neither key keeps the fingerprint it had before they
// existed (approvals made then stay valid).
func TestFingerprintCoversSandbox(t *testing.T) {
	base := config.Server{Name: "fs", Origin: config.Workspace, Command: "npx", Args: []string{"-y", "server"}, Cwd: "/repo", WorkspaceRoot: "/repo"}
	if got, want := ServerFingerprint(base), Fingerprint("npx", []string{"-y", "server"}, nil, "/repo"); got != want {
		t.Fatalf("an entry without sandbox keys: %s, want the launch fingerprint %s", got, want)
	}
	seen := map[string]string{ServerFingerprint(base): "default"}
	for name, change := range map[string]func(*config.Server){
		"sandbox none":            func(s *config.Server) { s.Sandbox = config.SandboxNone },
		"sandbox workspace-write": func(s *config.Server) { s.Sandbox = config.SandboxWorkspaceWrite },
		"sandbox workspace-read":  func(s *config.Server) { s.Sandbox = config.SandboxWorkspaceRead },
		"network":                 func(s *config.Server) { s.Network = true },
		"write and network": func(s *config.Server) {
			s.Sandbox, s.Network = config.SandboxWorkspaceWrite, true
		},
	} {
		s := base
		change(&s)
		fp := ServerFingerprint(s)
		if other, dup := seen[fp]; dup {
			t.Errorf("%s has the fingerprint of %s", name, other)
		}
		seen[fp] = name
	}
}
