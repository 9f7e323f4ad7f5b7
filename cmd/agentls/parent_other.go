//go:build !linux

package main

import "context"

// waitParentExit has no kernel notice here: the caller polls getppid, which
// changes when the parent dies on every Unix. (Windows keeps a dead
// parent's pid: there only the end of input ends agentls.)
func waitParentExit(context.Context, int) bool { return false }
