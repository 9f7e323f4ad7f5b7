// Command escapeprobe is what the confinement tests run inside the
// sandbox: a program that tries, with real system calls, the ways out of
// confinement that an attacker would, and prints what the kernel said.
// It is a test fixture, never shipped or started by agentls.
//
//	escapeprobe uring-unix PATH       socket by io_uring, connect to a unix socket, send
//	escapeprobe uring-udp HOST:PORT   socket by io_uring, send a UDP datagram
//	escapeprobe socket-unix PATH      socket(2), connect to a unix socket, send
//	escapeprobe i386-unix PATH        the same, the socket made by i386's int $0x80 (amd64)
//	escapeprobe x32-unix PATH         the same, the socket made by x32's socket (amd64)
//	escapeprobe socket-udp HOST:PORT  socket(2), send a UDP datagram
//	escapeprobe pair-dgram PATH       socketpair(2) of datagram sockets, send to a unix datagram socket
//	escapeprobe pair-stream           socketpair(2) of stream sockets, one message across
//	escapeprobe accept FD             accept(2) on an inherited descriptor
//	escapeprobe daemon PROGRAM ARGS   double fork under setsid (each refusal ignored), run PROGRAM
//	escapeprobe setpgid PROGRAM ARGS  a child in a process group of its own, run PROGRAM
//	escapeprobe privileged            capabilities held, a BPF map, perf_event_open on every process
//	escapeprobe prlimit PID           lower another process's descriptor limit to 1
//	escapeprobe keyring NAME          read the key NAME from the user's kernel keyring
//	escapeprobe inherited             write to every socket among descriptors 3 and up
//	escapeprobe listen                listen(2) on a TCP socket never bound (a port the kernel picks)
//	escapeprobe shm MARKER            look through every System V shared memory segment for MARKER
//
// Each mode prints one line per step, "STEP: ok" or "STEP: ERROR", and
// "ESCAPED" when the whole attempt worked; it exits 0 either way.
package main
