//go:build linux && !amd64

package main

import (
	"fmt"
	"runtime"
)

// otherABISocket: this architecture has no second system call ABI here.
func otherABISocket(abi string) (int, error) {
	return -1, fmt.Errorf("no %s system calls on %s", abi, runtime.GOARCH)
}
