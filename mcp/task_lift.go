package mcp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// liftTasks wraps a transport so that a result a server marks as a task
// (resultType "task", the Tasks extension's CreateTaskResult) reaches
// callOn: the SDK would decode it as an empty tools/call result and drop
// the task. The task goes, as its JSON text, under taskMetaKey in the
// result's _meta, which the SDK keeps. Only a stdio connection is wrapped:
// the SDK's Streamable HTTP connection needs its own type to be seen.
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
