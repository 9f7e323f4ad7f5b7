package main

import (
	"fmt"
	"os"
)

func cmdServe(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls: cmdServe is not built yet")
	return 1
}
