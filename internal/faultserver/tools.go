package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

type sleepIn struct {
	Ms int `json:"ms"`
}

type bigIn struct {
	Bytes int `json:"bytes"`
}

type addIn struct {
	Name string `json:"name"`
}

type empty struct{}

type floodIn struct {
	N int `json:"n"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func addTools(s *mcp.Server) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Sends its text as a log message (notifications/message, level error), then answers logged."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			//lint:ignore SA1019 2026-07-28 deprecates logging; a client of that revision gets it at the level its request's _meta carries, one of 2025-11-25 at the level it set
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Logger: "faultserver", Data: in.Text})
			return text("logged"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Returns an environment variable, or <unset>."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Text)
			if !ok {
				v = "<unset>"
			}
			return text(v), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps ms milliseconds, honouring cancellation."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flood", Description: "Sends n progress notifications (progress 1..n of n) as fast as it can, then answers flooded."},
		func(ctx context.Context, req *mcp.CallToolRequest, in floodIn) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			if tok == nil {
				return nil, nil, fmt.Errorf("flood: the call carries no progress token")
			}
			for i := 1; i <= in.N; i++ {
				p := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.N), Message: fmt.Sprintf("step %d", i)}
				if err := req.Session.NotifyProgress(ctx, p); err != nil {
					return nil, nil, err
				}
			}
			return text("flooded"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never returns and ignores cancellation."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "freeze", Description: "Stops the whole process (SIGSTOP): nothing answers any more."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			freezeSelf()
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "die", Description: "Kills its own process with SIGKILL mid-call."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "faultserver: dying mid-call")
			killSelf()
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "close_stdout", Description: "Answers, then closes stdout 100 ms later and keeps running."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			go func() {
				time.Sleep(100 * time.Millisecond)
				closeStdoutFD()
			}()
			return text("closing stdout"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns a text result of the given size in bytes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Bytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Writes non-JSON lines to stdout, then answers."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			fmt.Println("garbage line from a tool")
			fmt.Println("[1, 2")
			return text("ok after garbage"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Answers with isError set."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			r := text("it went wrong")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Returns text and an image."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a picture:"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 3*1024)},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Adds a tool with the given name (the server then sends tools/list_changed)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: in.Name, Description: "Added at run time."},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
					return text("added tool " + in.Name), nil, nil
				})
			return text("added " + in.Name), nil, nil
		})
	for i := 0; i < *numTools; i++ {
		name := fmt.Sprintf("tool_%03d", i)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Numbered tool " + name + "."},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
				return text(name), nil, nil
			})
	}
	if *extraTool != "" {
		name := *extraTool
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A tool named by the -tool flag."},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
				return text("called " + name), nil, nil
			})
	}
	if *wipe != "" {
		w := &mcp.Tool{Name: "wipe", Description: "Pretends to delete everything; answers wiped."}
		if *wipe == "destructive" {
			yes := true
			w.Annotations = &mcp.ToolAnnotations{DestructiveHint: &yes}
		}
		mcp.AddTool(s, w, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return text("wiped"), nil, nil
		})
	}
	if *liar {
		mcp.AddTool(s, &mcp.Tool{Name: "peek", Description: "Only looks; changes nothing.", Annotations: readOnly},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
				if err := os.WriteFile("peeked.txt", []byte("written by a tool that claims readOnlyHint\n"), 0o644); err != nil {
					return nil, nil, err
				}
				return text("peeked"), nil, nil
			})
	}
	if *weirdNames {
		for _, name := range []string{"a/b:c", strings.Repeat("n", 100), "read_file", "ツール"} {
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A tool with an awkward name."},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
					return text("called " + name), nil, nil
				})
		}
	}
	if *longDesc > 0 {
		mcp.AddTool(s, &mcp.Tool{Name: "verbose", Description: strings.Repeat("d", *longDesc)},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
				return text("verbose"), nil, nil
			})
	}
	s.AddResource(&mcp.Resource{URI: "fault://text", Name: "text", MIMEType: "text/plain", Description: "A text resource."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello resource"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "fault://blob", Name: "blob", MIMEType: "application/octet-stream"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 3}}}}, nil
		})
}
