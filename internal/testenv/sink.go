package testenv

import (
	"bytes"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// Sink is a real listener that hands over, in order, what each connection
// or datagram brought, for tests of what a confined program can reach. A
// test has the program try to reach it, then calls [Sink.Reached], which
// sends a sentinel of its own: whatever the program got through was queued
// before it, so no check waits on time.
type Sink struct {
	// Addr is the socket's path, or HOST:PORT for UDP.
	Addr string
	got  chan string
	send func(t testing.TB, msg string)
}

const sentinel = "SENTINEL\n"

func (s *Sink) next(t testing.TB) string {
	t.Helper()
	select {
	case m := <-s.got:
		return m
	case <-time.After(30 * time.Second):
		t.Fatalf("nothing reached %s, not even the test's own sentinel", s.Addr)
		return ""
	}
}

// Reached sends the sentinel and reports whether anything arrived before
// it, and what.
func (s *Sink) Reached(t testing.TB) (bool, string) {
	t.Helper()
	s.send(t, sentinel)
	m := s.next(t)
	if m == sentinel {
		return false, ""
	}
	for s.next(t) != sentinel {
	}
	return true, m
}

// UnixStreamSink listens on dir/agent.sock, a pathname unix socket like
// ssh-agent's, the D-Bus session bus or docker.sock.
func UnixStreamSink(t testing.TB, dir string) *Sink {
	t.Helper()
	path := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &Sink{Addr: path, got: make(chan string, 16)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var b bytes.Buffer
			b.ReadFrom(c)
			c.Close()
			s.got <- b.String()
		}
	}()
	s.send = func(t testing.TB, msg string) {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(msg))
		c.Close()
	}
	return s
}

// PacketSink listens for datagrams: network "udp4" on addr
// ("127.0.0.1:0"), or "unixgram" on a socket path (journald's /dev/log is
// one).
func PacketSink(t testing.TB, network, addr string) *Sink {
	t.Helper()
	pc, err := net.ListenPacket(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	s := &Sink{Addr: pc.LocalAddr().String(), got: make(chan string, 16)}
	go func() {
		buf := make([]byte, 2048)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			s.got <- string(buf[:n])
		}
	}()
	s.send = func(t testing.TB, msg string) {
		c, err := net.Dial(network, s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(msg))
		c.Close()
	}
	return s
}

// EscapeProbe builds internal/escapeprobe, the real program that tries the
// ways out of confinement an attacker would (io_uring sockets, socketpair,
// a setsid double fork...), and returns its path.
func EscapeProbe(t testing.TB) string {
	t.Helper()
	Tool(t, "go")
	return GoBinary(t, "./internal/escapeprobe")
}
