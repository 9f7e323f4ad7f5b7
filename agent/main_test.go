package agent

import (
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	proc.Hook()    // the guard that reaps command groups after a SIGKILL
	sandbox.Hook() // the launcher of confined commands
	goleak.VerifyTestMain(m)
}
