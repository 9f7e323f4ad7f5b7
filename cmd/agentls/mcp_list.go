package main

import (
	"fmt"
	"os"
)

func cmdMCPList(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls: cmdMCPList is not built yet")
	return 1
}
