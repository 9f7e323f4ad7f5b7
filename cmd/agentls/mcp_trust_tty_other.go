//go:build !linux

package main

import "os"

// isTerminal reports whether f is a character device; outside Linux this is
// the portable approximation.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && f.Name() != os.DevNull
}
