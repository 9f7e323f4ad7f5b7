package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agentls/agentls/mcp"
)

// cmdMCPClientMetadata is `agentls mcp client-metadata URL`: it prints the
// Client ID Metadata Document to host at URL for oauth_client_metadata_url
// = URL (docs/security.md, OAuth clients).
func cmdMCPClientMetadata(args []string) int {
	fs := flag.NewFlagSet("agentls mcp client-metadata", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: agentls mcp client-metadata URL")
		fs.PrintDefaults()
	}
	urls, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if len(urls) != 1 {
		fmt.Fprintln(os.Stderr, "agentls mcp client-metadata: give the https URL the document will be served at")
		fs.Usage()
		return 2
	}
	b, err := mcp.ClientMetadataDocument(urls[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp client-metadata: %v\n", err)
		return 2
	}
	os.Stdout.Write(b)
	return 0
}
