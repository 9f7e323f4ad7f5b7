package agent

import (
	"sort"

	"github.com/agentls/agentls/wire"
)

// sortTasks orders task rows by start time, then id.
func sortTasks(ts []wire.TaskInfo) {
	sort.Slice(ts, func(i, j int) bool {
		if !ts[i].StartedAt.Equal(ts[j].StartedAt) {
			return ts[i].StartedAt.Before(ts[j].StartedAt)
		}
		return ts[i].TaskID < ts[j].TaskID
	})
}
