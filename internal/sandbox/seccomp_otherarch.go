//go:build linux && !amd64 && !arm64

package sandbox

// No socket filter on this architecture (see syscallFilter): Support says so.
const (
	auditArch = 0
	x32Bit    = 0
)

// sysvIPC is empty: there is no filter to list them in.
var sysvIPC []uint32
