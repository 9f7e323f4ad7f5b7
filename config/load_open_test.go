//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The checks run on the opened file, so what is read is what was checked: a
// FIFO swapped in after a path check can neither block nor be read.
func TestReadOpenedChecksTheFileItHolds(t *testing.T) {
	tests := []struct {
		name  string
		make  func(t *testing.T, path string)
		wants string // "" means it is read
	}{
		{"a regular file is read", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"a FIFO opens without blocking and is refused", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatalf("mkfifo: %v", err)
			}
		}, "not a regular file (p"},
		{"a directory is refused", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (d"},
		{"a file over the cap is refused", func(t *testing.T, p string) {
			if err := os.WriteFile(p, make([]byte, maxConfigBytes+1), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "too large for a config file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.toml")
			tc.make(t, p)
			fh, err := openConfigFile(p)
			if err != nil {
				t.Fatalf("openConfigFile: %v", err)
			}
			defer fh.Close()
			b, err := readOpened(fh)
			switch {
			case tc.wants == "" && (err != nil || string(b) != "x = 1\n"):
				t.Fatalf("readOpened = %q, %v; want the file's bytes", b, err)
			case tc.wants != "" && (err == nil || !strings.Contains(err.Error(), tc.wants)):
				t.Fatalf("readOpened = %d bytes, %v; want an error saying %q", len(b), err, tc.wants)
			}
		})
	}
}

func TestAFileSwappedAfterOpeningIsNotWhatIsRead(t *testing.T) {
	// The open file is the one checked and read; replacing the path with a
	// FIFO afterwards (the race a stat-then-open check loses) changes nothing.
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := openConfigFile(p)
	if err != nil {
		t.Fatalf("openConfigFile: %v", err)
	}
	defer fh.Close()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	if b, err := readOpened(fh); err != nil || string(b) != "x = 1\n" {
		t.Fatalf("readOpened = %q, %v; want the bytes of the file that was opened", b, err)
	}
}
