// Command fakemodel serves agentls's fake model (agent/model/modeltest) as a
// process, for the VS Code extension's tests, which run under node and cannot
// call Go. It is a test helper: it must never be shipped or pointed at by a
// user config.
//
// Protocol, one JSON value per line:
//
//	stdin:  [Turn, ...]        the script (modeltest.Turn's fields); first line
//	stdout: {"url": "..."}     once the server listens
//	stdin:  "requests"         prints every request so far (below)
//	stdin:  EOF                closes the server and exits
//
// A request is printed as {format, path, toolNames, toolResults,
// lastUserText, assistantTexts, system}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// processTB is the testing.TB modeltest.New needs, outside a test: it runs
// cleanups at exit and turns a failure into a message on stderr.
type processTB struct {
	testing.TB // nil: only the methods below may be called
	cleanups   []func()
}

func (p *processTB) Helper()          {}
func (p *processTB) Cleanup(f func()) { p.cleanups = append(p.cleanups, f) }
func (p *processTB) Name() string     { return "fakemodel" }
func (p *processTB) Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakemodel: "+format+"\n", args...)
}
func (p *processTB) Errorf(format string, args ...any) { p.Logf(format, args...) }
func (p *processTB) Fatalf(format string, args ...any) {
	p.Logf(format, args...)
	p.close()
	os.Exit(1)
}

func (p *processTB) close() {
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
	p.cleanups = nil
}

type request struct {
	Format       string                 `json:"format"`
	Path         string                 `json:"path"`
	ToolNames    []string               `json:"toolNames"`
	ToolResults  []modeltest.ToolResult `json:"toolResults"`
	LastUserText string                 `json:"lastUserText"`
	// AssistantTexts is what the request shows the model it said before.
	AssistantTexts []string `json:"assistantTexts"`
	System         string   `json:"system"`
}

func main() {
	tb := &processTB{}
	defer tb.close()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	if !in.Scan() {
		tb.Fatalf("stdin closed before the script: send a JSON array of turns on the first line")
	}
	var turns []modeltest.Turn
	if err := json.Unmarshal(in.Bytes(), &turns); err != nil {
		tb.Fatalf("the first line must be a JSON array of turns ({\"Text\": ..., \"ToolCalls\": [{\"ID\", \"Name\", \"Input\"}]}): %v", err)
	}
	s := modeltest.New(tb)
	s.Script(turns...)
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(map[string]string{"url": s.URL()}); err != nil {
		tb.Fatalf("write url: %v", err)
	}
	for in.Scan() {
		switch cmd := strings.TrimSpace(in.Text()); cmd {
		case `"requests"`, "requests":
			reqs := []request{}
			for _, r := range s.Requests() {
				reqs = append(reqs, request{string(r.Format), r.Path, r.ToolNames(), r.ToolResults(), r.LastUserText(), r.AssistantTexts(), r.System()})
			}
			if err := out.Encode(reqs); err != nil {
				tb.Fatalf("write requests: %v", err)
			}
		case "":
		default:
			tb.Logf("unknown command %q: expected \"requests\"", cmd)
		}
	}
}
