//go:build unix

package mcp

import (
	"fmt"
	"os"
	"strings"
)

// pathSeparators mark a command that names a file rather than a program
// to look up in PATH.
const pathSeparators = "/"

// envPath is the PATH of env.
func envPath(env []string) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}

// executable returns p if it is an executable file.
func executable(p string, _ []string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", p)
	}
	return p, nil
}
