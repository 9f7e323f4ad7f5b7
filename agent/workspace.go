package agent

import "github.com/agentls/agentls/agent/tools"

// DiskWorkspace is a Workspace over the disk rooted at folder: no open
// buffers, and WriteFile reports applied=false so the caller writes the disk.
func DiskWorkspace(folder string) tools.Workspace { return tools.DiskWorkspace(folder) }
