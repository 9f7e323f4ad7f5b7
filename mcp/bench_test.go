package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectOnce starts n fault servers with a 300 ms handshake delay and
// returns how long until none is connecting; Close is not timed.
func connectOnce(b *testing.B, n int) time.Duration {
	servers := make([]config.Server, n)
	for i := range servers {
		servers[i] = faultServer(b, fmt.Sprintf("s%02d", i), "-handshake-delay", "300ms")
	}
	r := NewRegistry(servers, Options{})
	start := time.Now()
	r.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	r.Wait(ctx)
	d := time.Since(start)
	cancel()
	for _, s := range r.Servers() {
		if s.State != Connected {
			b.Fatalf("%s: %s %s", s.Name, s.State, s.Error)
		}
	}
	r.Close()
	return d
}

// BenchmarkConnectParallel compares connecting 10 servers against one, each
// with a 300 ms handshake. Reported: ms for 1, ms for 10, and their ratio
// (the goal is ≤ 1.3: servers connect in parallel).
func BenchmarkConnectParallel(b *testing.B) {
	var one, ten time.Duration
	for i := 0; i < b.N; i++ {
		one += connectOnce(b, 1)
		ten += connectOnce(b, 10)
	}
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms/1-server")
	b.ReportMetric(float64(ten.Milliseconds())/float64(b.N), "ms/10-servers")
	b.ReportMetric(float64(ten)/float64(one), "ratio")
}

// BenchmarkCallOverhead compares an echo call through the registry with the
// same call on a bare SDK session to another instance of the same server.
// Reported: µs per call each way, the added µs and the ratio (the goal is
// ≤ 1.10 or < 50 µs added).
func BenchmarkCallOverhead(b *testing.B) {
	r := NewRegistry([]config.Server{faultServer(b, "f")}, Options{})
	defer r.Close()
	r.Start(context.Background())
	r.Wait(context.Background())
	if res := r.Call(context.Background(), "f__echo", []byte(`{"text":"x"}`)); res.IsError {
		b.Fatal(res.Text)
	}

	cmd := exec.Command(faultBin, "-marker", newMarker(b))
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	bare := func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		if err != nil || res.IsError {
			b.Fatalf("bare call: %v", err)
		}
	}
	viaRegistry := func() {
		if res := r.Call(context.Background(), "f__echo", []byte(`{"text":"x"}`)); res.IsError || res.Text != "x" {
			b.Fatalf("registry call: %+v", res)
		}
	}
	for range 50 { // warm both paths
		bare()
		viaRegistry()
	}
	b.ResetTimer()
	var tBare, tReg time.Duration
	for i := 0; i < b.N; i++ {
		s := time.Now()
		bare()
		tBare += time.Since(s)
		s = time.Now()
		viaRegistry()
		tReg += time.Since(s)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tBare.Microseconds())/n, "µs/bare-call")
	b.ReportMetric(float64(tReg.Microseconds())/n, "µs/registry-call")
	b.ReportMetric(float64((tReg-tBare).Microseconds())/n, "µs-added")
	b.ReportMetric(float64(tReg)/float64(tBare), "ratio")
}
