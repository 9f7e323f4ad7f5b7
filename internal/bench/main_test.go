package bench

import (
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// Every benchmark here closes what it started: connections, the fake
// model, the proxy, and each agentls process.
func TestMain(m *testing.M) { testenv.Main(m) }
