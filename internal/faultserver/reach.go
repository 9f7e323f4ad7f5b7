package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reach flags make the server try what a confined server must not be
// able to do, so tests see the kernel's answer in a tool result.
var (
	tryWrite   = flag.String("write", "", "add a tool try_write that creates this file (or the one its path argument names) with a line in it, answering what the system said")
	tryRead    = flag.String("read", "", "add a tool try_read that reads this file (or the one its path argument names), answering its content or the error")
	tryConnect = flag.String("connect", "", "add a tool try_connect that opens a TCP connection to this HOST:PORT, answering what the system said")
	tryExec    = flag.Bool("exec", false, "add a tool try_exec that runs the program its path argument names (with its args), answering its output or the error")
)

type pathIn struct {
	Path string `json:"path,omitempty"`
}

type execIn struct {
	Path string   `json:"path"`
	Args []string `json:"args,omitempty"`
}

func addReach(s *mcp.Server) {
	if *tryWrite != "" {
		mcp.AddTool(s, &mcp.Tool{Name: "try_write", Description: "Creates the file named by path, else by -write."},
			func(_ context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
				path := *tryWrite
				if in.Path != "" {
					path = in.Path
				}
				if err := os.WriteFile(path, []byte(fmt.Sprintf("written by faultserver %d\n", os.Getpid())), 0o644); err != nil {
					return text("write failed: " + err.Error()), nil, nil
				}
				return text("wrote " + path), nil, nil
			})
	}
	if *tryRead != "" {
		mcp.AddTool(s, &mcp.Tool{Name: "try_read", Description: "Reads the file named by path, else by -read."},
			func(_ context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
				path := *tryRead
				if in.Path != "" {
					path = in.Path
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return text("read failed: " + err.Error()), nil, nil
				}
				return text("read: " + string(b)), nil, nil
			})
	}
	if *tryExec {
		mcp.AddTool(s, &mcp.Tool{Name: "try_exec", Description: "Runs the program named by path with args."},
			func(_ context.Context, _ *mcp.CallToolRequest, in execIn) (*mcp.CallToolResult, any, error) {
				out, err := exec.Command(in.Path, in.Args...).CombinedOutput()
				if err != nil {
					return text("exec failed: " + err.Error() + ": " + string(out)), nil, nil
				}
				return text("ran: " + string(out)), nil, nil
			})
	}
	if *tryConnect != "" {
		addr := *tryConnect
		mcp.AddTool(s, &mcp.Tool{Name: "try_connect", Description: "Opens a TCP connection to the -connect address."},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
				c, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					return text("connect failed: " + err.Error()), nil, nil
				}
				c.Close()
				return text("connected to " + addr), nil, nil
			})
	}
}
