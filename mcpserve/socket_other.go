//go:build !linux

package mcpserve

import (
	"context"
	"net"
)

func listenUnixAt(path string) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, tooLong(path)
	}
	return net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
}

func dialUnixAt(ctx context.Context, path string) (net.Conn, error) {
	if len(path) > maxSocketPath {
		return nil, tooLong(path)
	}
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
