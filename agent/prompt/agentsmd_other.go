//go:build !unix

package prompt

// agentsMDOpenFlags is empty where there are no FIFOs that block an open.
const agentsMDOpenFlags = 0
