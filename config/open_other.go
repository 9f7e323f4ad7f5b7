//go:build !unix

package config

import "os"

// openConfigFile opens path for reading. Without unix FIFOs there is no
// open that blocks on a missing writer; readOpened checks the opened file.
func openConfigFile(path string) (*os.File, error) {
	return os.Open(path)
}
