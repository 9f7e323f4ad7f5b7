package neovim_test

import (
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestMain fails the run when a goroutine outlives the tests (the fake model
// server's handlers, the nvim process waiters).
func TestMain(m *testing.M) {
	testenv.Main(m)
}
