package sandbox

import "testing"

func TestSummarySaysWhatIsAllowedBeyondTheSystem(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Policy
		want string
	}{
		{"read-only command", Policy{Read: []string{"/w"}}.WithSystem(), "reads /w; writes nothing; network: none"},
		{"server with state and a port", Policy{Read: []string{"/w"}, Write: []string{"/s"}, Connect: []uint16{443}}.WithSystem(),
			"reads /w; writes /s; network: TCP connect 443"},
		{"network", Policy{Network: true}.WithSystem(), "writes nothing; network: any"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Summary(); got != tc.want {
				t.Errorf("Summary() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSupportStringNamesWhatIsMissing(t *testing.T) {
	if got := (Support{Reason: "no Landlock"}).String(); got != "not available: no Landlock" {
		t.Errorf("unsupported: %q", got)
	}
	s := Support{ABI: 3, Filesystem: true}
	if got := s.String(); got != "Landlock ABI 3: files (network NOT limited)" {
		t.Errorf("ABI 3 without a socket filter: %q", got)
	}
}
