// Package proc starts child processes so that none outlives its owner, on
// every platform agentls builds for. It is the one place that knows how a
// process group is started, stopped and reaped; the agent's run_command and
// the MCP servers both use it.
//
// What each platform gives:
//
//   - Linux: the child leads its own process group and gets a parent-death
//     signal (SIGKILL) from the kernel; stopping sends SIGTERM to the group,
//     then SIGKILL after a grace period; the guard (see [Hook]) terminates
//     registered groups if agentls itself is killed. With [Options.Reap] the
//     command runs under a reaper, a child subreaper that also ends what
//     left the group (a daemon detached with setsid).
//   - macOS and the other Unix systems: the same, except that there is no
//     parent-death signal; the guard alone ends the groups of a killed
//     agentls (without [Hook], a child notices only that its pipes closed).
//   - Windows: there are no process groups or signals. The child starts
//     suspended, is put in a Job object that kills everything in it when the
//     last handle closes (so when agentls dies, however it dies), and only
//     then runs; stopping gives it the grace period to end by itself (an MCP
//     server's stdin is closed first) and then terminates the whole job. If
//     no Job object can be made, only the child itself is killed.
//
// The guard and the reapers are small programs of their own: agentls names
// agentls-sandbox ([UseHelper]), which imports only this package and the
// sandbox's, so each holds a few MB where a second agentls held 12.
//
// proc never decides what to run or whether; it only owns the lifetime.
package proc
