package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestConfinedHoldsNoCapability: a program confined by agentls running as
// root (a container, a CI machine, a root shell) holds no capability.
// Landlock and the seccomp filter do not take them away: the confined
// program made BPF maps (bpf(2) loads kernel programs that read and write
// any process's memory, agentls's API keys included) and watched every
// process on the machine with perf_event_open. The same probe unconfined
// holds them, so each refusal is the sandbox's.
func TestConfinedHoldsNoCapability(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("only a program run as root holds capabilities to drop (run the tests as root to check this)")
	}
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	if !viaSpawn {
		if out, _ := exec.Command(probe, "privileged").CombinedOutput(); !strings.Contains(string(out), "ESCAPED") {
			t.Fatalf("unconfined, as root, the probe held no capability (so this test shows nothing): %s", out)
		}
	}
	for name, q := range map[string]Policy{"network off": p, "TCP ports": withConnect(p, 1), "network on": withNetwork(p)} {
		t.Run(name, func(t *testing.T) {
			out, code := runConfined(t, q, f.ws, probe, "privileged")
			if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "capabilities: effective 0x0 permitted 0x0") {
				t.Errorf("confined as root, the probe kept capabilities (exit %d):\n%s", code, out)
			}
		})
	}
	t.Run("real programs still run", TestConfinedRealProgramsStillRun)
}

func withConnect(p Policy, port uint16) Policy { p.Connect = []uint16{port}; return p }
func withNetwork(p Policy) Policy              { p.Network = true; return p }
