// Command faultserver is a stdio MCP server built on the official Go SDK that
// misbehaves on request, so agentls's registry is tested against a real
// process: slow handshakes, hangs, deaths mid-call, garbage on stdout, huge
// results, hundreds of tools, grandchildren, ignored SIGTERM. Every fault is
// a flag or a tool, so benchmarks and tests set exactly what they need. It is
// a test fixture and must never be shipped or configured for real use.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	handshakeDelay = flag.Duration("handshake-delay", 0, "sleep this long before reading the first message")
	listDelay      = flag.Duration("list-delay", 0, "delay every tools/list answer this long")
	numTools       = flag.Int("tools", 0, "add this many extra tools named tool_000, tool_001, ...")
	exitAtOnce     = flag.Int("exit-at-once", -1, "write to stderr and exit with this code before speaking MCP")
	garbageAtStart = flag.Bool("garbage-at-start", false, "write non-JSON lines to stdout before the handshake")
	stderrText     = flag.String("stderr", "", "write this line to stderr at start")
	weirdNames     = flag.Bool("weird-names", false, "add tools with illegal, overlong and built-in-colliding names")
	longDesc       = flag.Int("long-description", 0, "add a tool whose description is this many characters")
	child          = flag.Bool("child", false, "start a grandchild (this binary with -idle) like npx does")
	idle           = flag.Bool("idle", false, "do nothing until killed (the grandchild of -child)")
	daemon         = flag.Bool("daemon", false, "detach a grandchild (this binary with -idle) as a daemon does: a double fork under setsid, each refused setsid ignored")
	daemonMiddle   = flag.Bool("daemon-middle", false, "the middle process of -daemon: start the grandchild and exit")
	linger         = flag.Bool("linger", false, "keep running after stdin closes, like server-everything")
	ignoreTerm     = flag.Bool("ignore-term", false, "ignore SIGTERM, so only SIGKILL stops it")
	pageSize       = flag.Int("page-size", 0, "list at most this many tools or resources per page (0: the SDK's default)")
	extraTool      = flag.String("tool", "", "add a tool with exactly this name (any bytes: tests of hostile names)")
	wipe           = flag.String("wipe", "", `add a tool "wipe" (same description and schema either way): "destructive" marks it destructiveHint, "plain" gives it no annotations`)
	liar           = flag.Bool("liar", false, `add a tool "peek" that claims readOnlyHint but writes the file peeked.txt in its working folder (a server lying about its tool)`)
	marker         = flag.String("marker", "", "ignored; tests find this process by it in the process table")
)

func main() {
	flag.Parse()
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *idle {
		select {}
	}
	if *stderrText != "" {
		fmt.Fprintln(os.Stderr, *stderrText)
	}
	if *exitAtOnce >= 0 {
		fmt.Fprintf(os.Stderr, "faultserver: exiting at once with code %d\n", *exitAtOnce)
		os.Exit(*exitAtOnce)
	}
	if *daemonMiddle {
		startDetached(false, os.Args[0], "-idle", "-marker", *marker)
		os.Exit(0) // the grandchild is orphaned
	}
	if *daemon {
		startDetached(true, os.Args[0], "-daemon-middle", "-marker", *marker)
	}
	if *child {
		cmd := exec.Command(os.Args[0], "-idle", "-marker", *marker)
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "faultserver: start child:", err)
			os.Exit(1)
		}
	}
	if *garbageAtStart {
		fmt.Println("Starting fault server... (not JSON)")
		fmt.Println("{this is not json either")
		fmt.Println(`{"level":"info","msg":"a JSON log line that is not JSON-RPC"}`)
		fmt.Println("")
	}
	time.Sleep(*handshakeDelay)

	opts := &mcp.ServerOptions{PageSize: *pageSize}
	if *withRoots {
		// From 2026-07-28 a server may not send roots/list while serving a
		// request (SEP-2322): speak the version before it.
		opts.SupportedProtocolVersions = []string{"2025-11-25"}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "faultserver", Version: "1"}, opts)
	addTools(s)
	addMedia(s)
	addAsk(s)
	addBarrier(s)
	addReach(s)
	addPrompts(s)
	addRoots(s)
	if *listDelay > 0 {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					time.Sleep(*listDelay)
				}
				return next(ctx, method, req)
			}
		})
	}
	if *httpAddr != "" {
		serveHTTP(s)
	}
	var transport mcp.Transport = &mcp.StdioTransport{MaxLineLength: -1}
	if *media {
		transport = corrupting{transport}
	}
	err := s.Run(context.Background(), transport)
	if *linger {
		select {}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "faultserver:", err)
		os.Exit(1)
	}
}
