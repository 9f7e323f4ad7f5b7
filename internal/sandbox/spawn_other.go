//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
)

// Spawn needs Landlock, which only Linux has: it always fails here.
func Spawn(Policy, Cmd) (*Process, error) {
	return nil, errors.New("sandbox: cannot confine on this system: Landlock is Linux only")
}

func runSpawner([]string) int {
	fmt.Fprintln(os.Stderr, "agentls: spawner: this system has no Landlock")
	return launcherFailed
}

func runGroupKeeper() int {
	fmt.Fprintln(os.Stderr, "agentls: group keeper: this system has no Landlock")
	return launcherFailed
}
