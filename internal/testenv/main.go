package testenv

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Main runs a test binary's tests, then removes what this package built for
// them (the agentls binary of [Agentls], about 20 MB per test process, which
// was left in the temp folder of every machine that ran the tests), then
// fails a passing run whose goroutines outlived the tests, as
// goleak.VerifyTestMain does. A package's TestMain calls it last.
func Main(m *testing.M, opts ...goleak.Option) {
	code := m.Run()
	RemoveBuilds()
	if code == 0 {
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines outlived the tests:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// RemoveBuilds removes the binaries [Agentls] built in this process. A
// TestMain that ends another way than [Main] calls it after m.Run.
func RemoveBuilds() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}
