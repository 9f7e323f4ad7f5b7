//go:build !linux

package sandbox

import "runtime"

func probe() Support {
	return Support{Reason: "Landlock is Linux only; " + runtime.GOOS + " has no confinement here"}
}
