package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var withBarrier = flag.Bool("barrier", false, "add a barrier tool: a call returns only once n calls are in it at the same time")

type barrierIn struct {
	N         int `json:"n"`
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// barrier proves calls run concurrently without timing them: each call
// waits until n calls are inside at once; a client that calls one at a
// time makes the first wait out its timeout and fail.
type barrier struct {
	mu      sync.Mutex
	inside  int
	arrived chan struct{} // closed when inside reaches the n of this round
}

func addBarrier(s *mcp.Server) {
	if !*withBarrier {
		return
	}
	b := &barrier{arrived: make(chan struct{})}
	mcp.AddTool(s, &mcp.Tool{Name: "barrier", Description: "Returns once n calls are waiting in it at the same time (fails after timeoutMs, default 10000)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in barrierIn) (*mcp.CallToolResult, any, error) {
			if in.TimeoutMs <= 0 {
				in.TimeoutMs = 10000
			}
			b.mu.Lock()
			b.inside++
			ch := b.arrived
			if b.inside >= in.N {
				close(b.arrived)
				b.arrived = make(chan struct{})
				b.inside = 0
			}
			b.mu.Unlock()
			select {
			case <-ch:
				return text(fmt.Sprintf("met %d", in.N)), nil, nil
			case <-time.After(time.Duration(in.TimeoutMs) * time.Millisecond):
				b.mu.Lock()
				if b.arrived == ch {
					b.inside--
				}
				b.mu.Unlock()
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "waited alone: the other calls never came while this one waited"}}}, nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
}
