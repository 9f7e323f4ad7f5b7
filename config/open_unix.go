//go:build unix

package config

import (
	"os"
	"syscall"
)

// openConfigFile opens path for reading without blocking: opening a FIFO
// with no writer returns at once (a plain open would wait forever for one),
// and O_NOCTTY keeps a terminal device from becoming ours. Reads of the
// regular file readOpened accepts are not affected by O_NONBLOCK.
func openConfigFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
