package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// liftTasks wraps a transport so that a result a server marks as a task
// (resultType "task", the Tasks extension's CreateTaskResult) reaches
// callOn: the SDK would decode it as an empty tools/call result and drop
// the task. The task goes, as its JSON text, under taskMetaKey in the
// result's _meta, which the SDK keeps. Only a stdio connection is wrapped:
// the SDK's Streamable HTTP connection needs its own type to be seen, so
// there liftTaskBody does the same to the HTTP responses.
func liftTasks(t sdk.Transport) sdk.Transport { return &taskTransport{inner: t} }

type taskTransport struct{ inner sdk.Transport }

func (t *taskTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConnection{Connection: c}, nil
}

type taskConnection struct{ sdk.Connection }

func (c *taskConnection) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Error == nil {
		resp.Result = liftTask(resp.Result)
	}
	return msg, err
}

// liftTask rewrites a CreateTaskResult as an empty result that carries
// the task in its _meta; any other result is returned as it is.
func liftTask(result json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result
	}
	var rt string
	if json.Unmarshal(top["resultType"], &rt) != nil || rt != "task" {
		return result
	}
	meta := map[string]any{}
	_ = json.Unmarshal(top["_meta"], &meta) // a _meta that is not an object is dropped
	meta[taskMetaKey] = string(result)
	out, err := json.Marshal(map[string]any{"content": []any{}, "resultType": "complete", "_meta": meta})
	if err != nil {
		return result
	}
	return out
}

// liftTaskBody does liftTasks' work on a Streamable HTTP response, whose
// connection the SDK must keep as its own type: a JSON body's message, or
// each data line of an event stream.
func liftTaskBody(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		resp.Body = &liftedBody{src: resp.Body, whole: true}
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = &liftedBody{src: resp.Body, br: bufio.NewReaderSize(resp.Body, 64<<10)}
	}
}

// liftLineMax bounds the event-stream line looked at for a task: a longer
// one passes as it is (no task is that long; the SDK bounds events itself).
const liftLineMax = 1 << 20

// liftedBody hands out a response body with any task result lifted.
type liftedBody struct {
	src   io.ReadCloser
	whole bool          // a JSON body: read whole, then lifted
	br    *bufio.Reader // an event stream: line by line
	out   []byte
	long  bool // in the middle of a line over liftLineMax
	err   error
}

func (b *liftedBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		b.fill()
	}
	if len(b.out) == 0 {
		return 0, b.err
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *liftedBody) fill() {
	if b.whole {
		data, err := io.ReadAll(b.src)
		b.out, b.err = liftMessage(data), err
		if b.err == nil {
			b.err = io.EOF
		}
		return
	}
	line, err := b.br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || b.long:
		b.out = append([]byte(nil), line...)
		b.long = errors.Is(err, bufio.ErrBufferFull) || (len(line) > 0 && line[len(line)-1] != '\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			b.err = err
		}
		return
	case bytes.HasPrefix(line, []byte("data:")) && len(line) <= liftLineMax:
		payload := bytes.TrimSpace(line[len("data:"):])
		if lifted := liftMessage(payload); !bytes.Equal(lifted, payload) {
			line = append(append([]byte("data: "), lifted...), '\n')
		}
	}
	b.out, b.err = append([]byte(nil), line...), err
}

func (b *liftedBody) Close() error { return b.src.Close() }

// liftMessage lifts the task of one encoded JSON-RPC response; anything
// else is returned as it is.
func liftMessage(data []byte) []byte {
	if !bytes.Contains(data, []byte(`"task"`)) {
		return data
	}
	msg, err := jsonrpc.DecodeMessage(data)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.Error != nil {
		return data
	}
	lifted := liftTask(resp.Result)
	if bytes.Equal(lifted, resp.Result) {
		return data
	}
	resp.Result = lifted
	out, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return data
	}
	return out
}

// taskRouteKey carries the taskId of a tasks/get, tasks/update or
// tasks/cancel to routeTask.
type taskRouteKey struct{}

// forTask marks ctx as the context of a request about task id.
func forTask(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, taskRouteKey{}, id)
}

// routeTask sets the Mcp-Name header of a Streamable HTTP request about a
// task to its taskId, as the extension requires (a load balancer routes
// by it; the TypeScript SDK refuses the request without it). The SDK sets
// Mcp-Name for the core's methods only.
func routeTask(req *http.Request) *http.Request {
	id, ok := req.Context().Value(taskRouteKey{}).(string)
	if !ok || !strings.HasPrefix(req.Header.Get("Mcp-Method"), "tasks/") || req.Header.Get("Mcp-Name") != "" {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Set("Mcp-Name", id)
	return req
}
