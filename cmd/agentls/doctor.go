package main

import (
	"fmt"
	"os"
)

func cmdDoctor(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls: cmdDoctor is not built yet")
	return 1
}
