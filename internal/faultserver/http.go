package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	httpAddr  = flag.String("http", "", `serve Streamable HTTP on this address (HOST:PORT, port 0 picks one) instead of stdio, saying "faultserver: listening on http://ADDR/mcp" on stderr`)
	stateless = flag.Bool("stateless", false, "with -http: serve without sessions, which is how the SDK's HTTP handler speaks MCP 2026-07-28 (with sessions it speaks 2025-11-25 and older)")
)

// serveHTTP serves s over Streamable HTTP at /mcp on -http's address, the
// same tools as over stdio (hang, freeze, die, flood, big...), so remote
// servers meet the faults stdio ones do. It says where it listens on
// stderr, then serves until the process ends.
func serveHTTP(s *mcp.Server) {
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faultserver:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: *stateless}))
	fmt.Fprintf(os.Stderr, "faultserver: listening on http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "faultserver:", err)
		os.Exit(1)
	}
}
