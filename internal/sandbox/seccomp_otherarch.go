//go:build linux && !amd64 && !arm64

package sandbox

// No socket filter on this architecture (see socketFilter): Support says so.
const (
	auditArch = 0
	x32Bit    = 0
)
