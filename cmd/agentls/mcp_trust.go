package main

import (
	"fmt"
	"os"
)

func cmdMCPTrust(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls: cmdMCPTrust is not built yet")
	return 1
}

func cmdMCPRevoke(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls: cmdMCPRevoke is not built yet")
	return 1
}
