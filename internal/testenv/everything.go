package testenv

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var tinyImage = regexp.MustCompile(`MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"`)

// EverythingTinyImage is the PNG server-everything's get-tiny-image tool
// returns, read from the installed server's own source, so a test can
// check that exactly these bytes reached the model.
func EverythingTinyImage(t testing.TB) []byte {
	t.Helper()
	p := filepath.Join(NodeModules(t), "@modelcontextprotocol", "server-everything", "dist", "tools", "get-tiny-image.js")
	src, err := os.ReadFile(p)
	if err != nil {
		Missing(t, "server-everything", "run scripts/setup.sh (npm ci in tools/node)")
	}
	m := tinyImage.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s has no MCP_TINY_IMAGE constant: the installed server-everything changed", p)
	}
	b, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatalf("%s: MCP_TINY_IMAGE: %v", p, err)
	}
	return b
}
