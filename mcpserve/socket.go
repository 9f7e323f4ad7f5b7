package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// An editor session also serves its listener on a unix-domain socket in
// the user's 0700 state folder (PID.sock, mode 0600), and `agentls mcp
// serve` reaches the session only through it, never through the TCP port
// its endpoint file names. The kernel enforces what a port cannot: only
// the user can make a socket in that folder, so whatever answers on it is
// the user's own agentls; a crashed session's socket refuses the
// connection, whereas its port may since be any program's (another
// user's), which would receive the token and the outside agent's calls.

// SocketPath is the socket of process pid's listener.
func SocketPath(stateDir string, pid int) string {
	return filepath.Join(Dir(stateDir), fmt.Sprintf("%d.sock", pid))
}

// maxSocketPath is the longest path a unix socket's address holds on
// every system agentls builds for (sun_path is 104 bytes on macOS and the
// BSDs, 108 on Linux, with the terminating NUL).
const maxSocketPath = 103

// listenUnix listens on a new socket at path, mode 0600, first removing
// a socket a crashed session left there (the folder is the user's own).
func listenUnix(path string) (*net.UnixListener, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
	ln, err := listenUnixAt(path)
	if err != nil {
		return nil, fmt.Errorf("mcpserve: listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // Close removes path by its own name
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, fmt.Errorf("mcpserve: %s: %w", path, err)
	}
	return ln, nil
}

// dialUnix connects to the listener at path.
func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	return dialUnixAt(ctx, path)
}

// gone reports whether a dial's error says nothing listens at the
// socket any more (its session ended or crashed), as opposed to a
// listener too busy to accept now.
func gone(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist)
}

func tooLong(path string) error {
	return fmt.Errorf("the socket path %s is %d bytes, longer than the %d a unix socket's address holds here: set XDG_STATE_HOME to a shorter folder", path, len(path), maxSocketPath)
}
