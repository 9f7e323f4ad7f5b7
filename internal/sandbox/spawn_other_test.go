//go:build !linux

package sandbox

import (
	"testing"
	"time"
)

// spawnerCPU: there is no long-lived launcher off Linux.
func spawnerCPU(testing.TB, Policy) time.Duration { return 0 }
