// Package sandbox confines a program the agent starts without a card, with
// the kernel's help: Landlock limits which files it may read, run and write
// and which TCP ports it may use, and a seccomp filter closes every other
// way to a socket unless the policy allows network: UDP, raw and unix
// sockets from socket(2), any socket made by io_uring (which never calls
// socket(2)), datagram socketpairs, accept on an inherited socket. The
// filter has a ceiling (see syscallFilter): a system call newer than the
// ones it was reviewed against fails with ENOSYS instead of passing; below
// it, every call passes but those it names. It is not a full allow list.
// Whatever the network, a confined program cannot leave its process group
// (setsid and setpgid fail), so whatever it starts, daemons included, ends
// when its group is killed.
//
// The rules are applied in a launcher, this binary re-executed with a hidden
// first argument (see [Hook]), between fork and exec of the target: never in
// agentls's own process, which must keep its full access. The launcher locks
// its thread, sets no_new_privs, restricts itself and then execs the target,
// which inherits the restriction and can never lift it.
//
// What a confined program may read is the system's trees and a short list
// of harmless /etc files and devices (see [SystemExec] and [Policy.WithSystem]:
// what any program needs to start and resolve names, never /etc as a whole,
// which holds /etc/shadow and host keys, nor /proc, which leads to other
// processes' environments), plus what the caller's Policy names. Callers
// add the workspace, the folders on PATH, the program's own package and the
// toolchain managers' install roots (trust.ToolchainDirs: a pyenv shim runs
// files under ~/.pyenv, so the folder on PATH alone is not enough) and the
// user's [sandbox] read, never the home folder or a folder that holds
// secrets (docs/security.md, "What a confined program may read").
//
// The package never decides what should be confined: callers (run_command,
// the MCP registry) build a [Policy]; this package only makes the kernel
// enforce it, or reports that it cannot ([Support]).
package sandbox
