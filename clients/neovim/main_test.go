package neovim_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a goroutine outlives the tests (the fake model
// server's handlers, the nvim process waiters).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
