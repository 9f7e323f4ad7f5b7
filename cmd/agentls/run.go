package main

import (
	"fmt"
	"os"
)

func cmdRun(args []string) int { fmt.Fprintln(os.Stderr, "agentls: cmdRun is not built yet"); return 1 }
