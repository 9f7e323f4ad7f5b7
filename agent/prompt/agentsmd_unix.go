//go:build unix

package prompt

import "syscall"

// agentsMDOpenFlags keep opening AGENTS.md from blocking on a FIFO with no
// writer and a terminal device from becoming ours; reads of the regular file
// agentsMD accepts are not affected.
const agentsMDOpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
