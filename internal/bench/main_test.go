package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// Every benchmark here closes what it started: connections, the fake
// model, the proxy, and each agentls process.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
