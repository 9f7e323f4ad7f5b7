//go:build !linux

package main

import "context"

// waitParentExit has no kernel notice here: the caller polls getppid, which
// changes when the parent dies on every Unix (watchParent does not watch on
// Windows, which keeps a dead parent's pid).
func waitParentExit(context.Context, int) bool { return false }
