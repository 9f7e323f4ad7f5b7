//go:build !linux

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// reaperWraps leaves cmd as it is: a child subreaper is Linux only, and
// on Windows the Job object already holds every descendant.
func reaperWraps(*exec.Cmd, time.Duration) bool { return false }

func runReaper([]string) int {
	fmt.Fprintln(os.Stderr, "agentls: reaper: Linux only")
	return 2
}
