package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/agentls/agentls/config"
)

// helperEnv, when set, makes the test binary a long-running registry host:
// it connects the servers of the JSON config list in the variable, prints
// "ready" and waits to be killed. Tests SIGKILL it to prove that no server
// process outlives its host.
const helperEnv = "AGENTLS_MCP_TEST_HELPER"

func runHelper(spec string) int {
	var servers []config.Server
	if err := json.Unmarshal([]byte(spec), &servers); err != nil {
		fmt.Fprintln(os.Stderr, "helper: bad spec:", err)
		return 2
	}
	r := NewRegistry(servers, Options{})
	r.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.Wait(ctx)
	for _, s := range r.Servers() {
		fmt.Printf("%s %s %s\n", s.Name, s.State, s.Error)
	}
	fmt.Println("ready")
	select {}
}
