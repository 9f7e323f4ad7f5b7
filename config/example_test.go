package config_test

import (
	"fmt"

	"github.com/agentls/agentls/config"
)

// Load never fails: a broken server entry is listed with its error and a
// diagnostic names the file, line and full key; the rest loads.
func ExampleLoad() {
	cfg := config.Load("testdata/example.toml", nil)
	for _, s := range cfg.MCP.Servers {
		fmt.Printf("%s: %s (%s, call timeout %s) failed=%v\n", s.Name, s.Command, s.Source, s.CallTimeout, s.Err != "")
	}
	for _, r := range cfg.MCP.Policy {
		fmt.Printf("policy %s = %s (%s)\n", r.Pattern, r.Action, r.Origin)
	}
	for _, d := range cfg.Diagnostics {
		fmt.Println(d.Severity, d.Source, d.Key)
	}
	// Output:
	// everything: mcp-server-everything (testdata/example.toml:1, call timeout 2m0s) failed=false
	// github: docker (testdata/example.toml:5, call timeout 2m0s) failed=true
	// policy everything__echo = allow (user)
	// error testdata/example.toml:7 mcp.servers.github.tiemout
}

func ExampleExpandEnv() {
	env := map[string]string{"GH_TOKEN": "ghp_x"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	v, _ := config.ExpandEnv("token=${GH_TOKEN} level=${LOG_LEVEL:-info} price=$$5", lookup)
	fmt.Println(v)
	_, err := config.ExpandEnv("${MISSING}", lookup)
	fmt.Println(err)
	// Output:
	// token=ghp_x level=info price=$5
	// ${MISSING} is not set: set MISSING in agentls's environment, or write ${MISSING:-default} to give a default
}
