package mcpserve

import (
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
