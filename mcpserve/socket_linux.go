//go:build linux

package mcpserve

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// A path longer than a socket address holds (a deep XDG_STATE_HOME) is
// reached through the folder's descriptor, /proc/self/fd/N/PID.sock,
// which the kernel resolves to the same folder.

func listenUnixAt(path string) (*net.UnixListener, error) {
	addr, done, err := shortPath(path)
	if err != nil {
		return nil, err
	}
	defer done()
	return net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
}

func dialUnixAt(ctx context.Context, path string) (net.Conn, error) {
	addr, done, err := shortPath(path)
	if err != nil {
		return nil, err
	}
	defer done()
	var d net.Dialer
	return d.DialContext(ctx, "unix", addr)
}

func shortPath(path string) (string, func(), error) {
	if len(path) <= maxSocketPath {
		return path, func() {}, nil
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	if len(addr) > maxSocketPath {
		dir.Close()
		return "", nil, tooLong(path)
	}
	return addr, func() { dir.Close() }, nil
}
