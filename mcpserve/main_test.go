package mcpserve

import (
	"os"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(squatEnv); addr != "" {
		os.Exit(squat(addr, os.Getenv(squatLogEnv)))
	}
	testenv.Main(m)
}
