package sandbox

import (
	"fmt"
	"strings"
	"sync"
)

// Support says what this system can enforce.
type Support struct {
	ABI          int  // Landlock ABI version, 0 when there is none
	Filesystem   bool // reads, writes and runs limited to named trees (ABI 1)
	TCP          bool // TCP connect and bind limited to named ports (ABI 4)
	Scoped       bool // signals and abstract unix sockets kept inside (ABI 6)
	SocketFilter bool // other sockets (UDP, unix, raw) refused by seccomp
	// Reason says why confinement is unavailable, when it is.
	Reason string
}

// Supported reports what the running kernel enforces; it is measured once.
var Supported = sync.OnceValue(probe)

// String is the one-line answer for `agentls doctor` and cards.
func (s Support) String() string {
	if !s.Filesystem {
		return "not available: " + s.Reason
	}
	have := []string{"files"}
	if s.TCP {
		have = append(have, "TCP ports")
	}
	if s.Scoped {
		have = append(have, "signals and abstract sockets")
	}
	if s.SocketFilter {
		have = append(have, "other sockets")
	}
	out := fmt.Sprintf("Landlock ABI %d: %s", s.ABI, strings.Join(have, ", "))
	if !s.TCP && !s.SocketFilter {
		out += " (network NOT limited)"
	}
	return out
}
