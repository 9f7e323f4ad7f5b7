package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that speaks the Tasks extension (io.modelcontextprotocol/tasks,
// MCP 2026-07-28) may answer a tools/call with a task instead of a result:
// agentls then polls tasks/get (honouring the server's pollIntervalMs), shows
// each statusMessage as the call's progress, puts the task's input requests
// to the user through the call's listener (the same cards as elicitation)
// and sends the answers with tasks/update, and on cancel sends tasks/cancel.
// A task still working when call_timeout is up is handed back as a Result
// with Task set: the caller may keep following it (AwaitTask) after the
// model's turn ended. The Go SDK (v1.8.0) knows nothing of tasks: it decodes
// a task into an empty CallToolResult, so liftTasks (on the connection) keeps
// the task where callOn finds it, and the three methods are sent as custom
// methods.

// tasksExtension is the Tasks extension's identifier, declared in the
// client capabilities of every request.
const tasksExtension = "io.modelcontextprotocol/tasks"

// taskMetaKey is where liftTasks puts a CreateTaskResult in the decoded
// result's _meta (replacing whatever the server put there under that key).
const taskMetaKey = "agentls/task"

// The bounds of the time between two tasks/get: a server's pollIntervalMs
// is honoured within them, so neither 0 nor an hour is taken as said.
const (
	taskPollMin     = 20 * time.Millisecond
	taskPollMax     = 5 * time.Second
	taskPollDefault = time.Second
	// taskRequestTimeout bounds one tasks/get, tasks/update or tasks/cancel.
	taskRequestTimeout = 30 * time.Second
)

// Task is a tool call a server runs as a task that was still working when
// the call had to return: Server and Tool name it, ID is the server's
// taskId, Status its last statusMessage.
type Task struct {
	Server string
	Tool   string // namespaced
	ID     string
	Status string
}

// taskRef is the params of tasks/get and tasks/cancel.
type taskRef struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

// taskUpdate is the params of tasks/update.
type taskUpdate struct {
	sdk.ParamsBase
	TaskID         string         `json:"taskId"`
	InputResponses map[string]any `json:"inputResponses"`
}

// taskState is a task as a CreateTaskResult or tasks/get shows it.
type taskState struct {
	sdk.ResultBase
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	PollIntervalMs *float64                   `json:"pollIntervalMs,omitempty"`
	TTLMs          *float64                   `json:"ttlMs,omitempty"` // null or absent: unlimited
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          *jsonrpc.Error             `json:"error,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
}

// ack is the empty result of tasks/update and tasks/cancel.
type ack struct{ sdk.ResultBase }

// The task statuses of the extension.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// addTaskMethods lets client c send the extension's methods.
func addTaskMethods(c *sdk.Client) {
	// Errors only for a name the SDK itself defines, which these are not.
	_ = sdk.AddSendingCustomMethod[*taskRef, *taskState](c, "tasks/get")
	_ = sdk.AddSendingCustomMethod[*taskUpdate, *ack](c, "tasks/update")
	_ = sdk.AddSendingCustomMethod[*taskRef, *ack](c, "tasks/cancel")
}

// taskOf returns the task a tools/call result carries, if any.
func taskOf(res *sdk.CallToolResult) *taskState {
	if res == nil || res.Meta == nil {
		return nil
	}
	raw, ok := res.Meta[taskMetaKey].(string)
	if !ok {
		return nil
	}
	var t taskState
	if json.Unmarshal([]byte(raw), &t) != nil || t.TaskID == "" {
		return nil
	}
	return &t
}

// expired reports whether the task, not done yet, is past its ttlMs
// counted from when agentls first saw it (the extension counts from its
// createdAt and lets a client stop relying on it then; agentls's own clock
// is used, so a server's clock set wrong cannot end a task early).
func (t *taskState) expired(seen, now time.Time) bool {
	return t.TTLMs != nil && now.After(seen.Add(time.Duration(*t.TTLMs*float64(time.Millisecond))))
}

// pollInterval is the wait before the next tasks/get.
func (t *taskState) pollInterval() time.Duration {
	if t.PollIntervalMs == nil {
		return taskPollDefault
	}
	d := time.Duration(*t.PollIntervalMs * float64(time.Millisecond))
	return min(max(d, taskPollMin), taskPollMax)
}

// followTask follows the task a call on srv became until it ends, returning
// its result; ctx is the caller's (cancelled: tasks/cancel), cctx the call's
// (ended by call_timeout: the task is handed back still running). l hears
// the task's progress and its questions (nil: declined).
func (r *Registry) followTask(ctx, cctx context.Context, srv *server, c *conn, tool string, t *taskState, l *CallListener) Result {
	name := srv.cfg.Name
	namespaced := r.namespaced(name, tool)
	answered := map[string]bool{}
	shown := ""
	seen := time.Now()
	for {
		if t.StatusMessage != "" && t.StatusMessage != shown && l != nil && l.Progress != nil {
			shown = t.StatusMessage
			l.Progress(Progress{Message: t.StatusMessage, Task: t.TaskID})
		}
		if (t.Status == taskWorking || t.Status == taskInputRequired) && t.expired(seen, time.Now()) {
			// Past its ttlMs the server may drop it at any time: a task
			// that never ends is not followed for ever.
			return errorResult(name, fmt.Sprintf("task %s of %s is still %s past its time to live (ttlMs %g); agentls stopped following it", t.TaskID, tool, t.Status, *t.TTLMs))
		}
		switch t.Status {
		case taskCompleted:
			var res sdk.CallToolResult
			if err := json.Unmarshal(t.Result, &res); err != nil {
				return errorResult(name, capText(fmt.Sprintf("the result of task %s could not be read: %v", t.TaskID, err), r.opts.ResultMaxBytes))
			}
			if bad := checkStructured(tool, r.outputSchema(srv, tool), &res); bad != "" {
				return errorResult(name, capText(bad, r.opts.ResultMaxBytes))
			}
			return convertResult(name, &res, resultLimits{text: r.opts.ResultMaxBytes, image: r.opts.MaxImageBytes})
		case taskFailed:
			why := "no error given"
			if t.Error != nil {
				why = t.Error.Message
			}
			return errorResult(name, capText(fmt.Sprintf("%s failed (task %s): %s", tool, t.TaskID, why), r.opts.ResultMaxBytes))
		case taskCancelled:
			return errorResult(name, capText(fmt.Sprintf("the server cancelled task %s of %s: %s", t.TaskID, tool, t.StatusMessage), r.opts.ResultMaxBytes))
		case taskInputRequired:
			if why := c.answerTask(cctx, t, l, answered); why != "" {
				c.cancelTask(t.TaskID)
				return errorResult(name, capText(why, r.opts.ResultMaxBytes))
			}
		case taskWorking:
		default:
			c.cancelTask(t.TaskID)
			return errorResult(name, capText(fmt.Sprintf("task %s of %s has status %q (expected working, input_required, completed, failed or cancelled); it was cancelled", t.TaskID, tool, t.Status), r.opts.ResultMaxBytes))
		}
		wait := time.NewTimer(t.pollInterval())
		select {
		case <-wait.C:
		case <-cctx.Done():
			wait.Stop()
		}
		if cctx.Err() != nil {
			switch {
			case ctx.Err() != nil:
				// The user cancelled: the server hears it as tasks/cancel
				// (never notifications/cancelled, which the extension forbids).
				c.cancelTask(t.TaskID)
				return errorResult(name, fmt.Sprintf("call cancelled (task %s was cancelled on the server)", t.TaskID))
			case errors.Is(context.Cause(cctx), errCallTimeout):
				return Result{Text: fmt.Sprintf("%s is still running on %s as task %s (last status: %s). It goes on after this turn: its result will be given to you when it is done. Do not call %s again for it.",
					namespaced, name, t.TaskID, orNone(t.StatusMessage), namespaced),
					Task: &Task{Server: name, Tool: namespaced, ID: t.TaskID, Status: t.StatusMessage}}
			default:
				return errorResult(name, fmt.Sprintf("the connection ended while task %s of %s was running", t.TaskID, tool))
			}
		}
		next, err := c.getTask(cctx, t.TaskID)
		if err != nil {
			if cctx.Err() != nil {
				continue // decided above, on the next turn of the loop
			}
			return errorResult(name, capText(fmt.Sprintf("tasks/get %s: %v", t.TaskID, err), r.opts.ResultMaxBytes))
		}
		t = next
	}
}

func orNone(s string) string {
	if s == "" {
		return "none given"
	}
	return s
}

// namespaced is the model's name of srv's tool.
func (r *Registry) namespaced(server, tool string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for n, k := range r.names {
		if k.Server == server && k.Tool == tool {
			return n
		}
	}
	return server + "__" + tool
}

// getTask sends tasks/get.
func (c *conn) getTask(ctx context.Context, id string) (*taskState, error) {
	ctx, cancel := context.WithTimeout(forTask(ctx, id), taskRequestTimeout)
	defer cancel()
	t, err := sdk.CallCustomMethod[*taskRef, *taskState](ctx, c.session, "tasks/get", &taskRef{TaskID: id})
	if err != nil {
		return nil, err
	}
	if t.TaskID != "" && t.TaskID != id {
		return nil, fmt.Errorf("the server answered for task %q", t.TaskID)
	}
	t.TaskID = id
	return t, nil
}

// cancelTask sends tasks/cancel, whatever became of the call's context:
// a cancel must reach the server after the caller gave up.
func (c *conn) cancelTask(id string) {
	ctx, cancel := context.WithTimeout(forTask(c.ctx, id), taskRequestTimeout)
	defer cancel()
	if _, err := sdk.CallCustomMethod[*taskRef, *ack](ctx, c.session, "tasks/cancel", &taskRef{TaskID: id}); err != nil && c.logf != nil {
		c.logf("mcp: %s: tasks/cancel %s: %v", c.name, id, err)
	}
}

// answerTask puts the task's input requests not answered yet to the user
// through l and sends the answers (tasks/update). A request key is answered
// once (a server repeats its outstanding requests on every poll). "" means
// answered (or nothing new); anything else is why the task cannot go on.
func (c *conn) answerTask(ctx context.Context, t *taskState, l *CallListener, answered map[string]bool) string {
	keys := make([]string, 0, len(t.InputRequests))
	for k := range t.InputRequests {
		if !answered[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	responses := map[string]any{}
	for _, k := range keys {
		answered[k] = true
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(t.InputRequests[k], &req) != nil || req.Method != "elicitation/create" {
			return fmt.Sprintf("task %s needs input agentls cannot give (%.60q); it was cancelled", t.TaskID, req.Method)
		}
		var p sdk.ElicitParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return fmt.Sprintf("task %s asked a question agentls cannot read (%v); it was cancelled", t.TaskID, err)
		}
		res, _ := c.elicitWith(ctx, l, &p)
		responses[k] = res
	}
	uctx, cancel := context.WithTimeout(forTask(ctx, t.TaskID), taskRequestTimeout)
	defer cancel()
	if _, err := sdk.CallCustomMethod[*taskUpdate, *ack](uctx, c.session, "tasks/update", &taskUpdate{TaskID: t.TaskID, InputResponses: responses}); err != nil {
		return fmt.Sprintf("tasks/update %s: %v", t.TaskID, err)
	}
	return ""
}

// AwaitTask follows a task handed back by Call (Result.Task) until it ends
// or ctx does (then it is left running on the server: CancelTask ends it).
// l hears its progress and its questions.
func (r *Registry) AwaitTask(ctx context.Context, t Task, l CallListener) Result {
	r.mu.Lock()
	srv := r.servers[t.Server]
	key, known := r.names[t.Tool]
	r.mu.Unlock()
	if srv == nil || !known {
		return errorResult(t.Server, fmt.Sprintf("task %s: the server or its tool %s is gone", t.ID, t.Tool))
	}
	r.mu.Lock()
	c := srv.conn
	ok := srv.state == Connected
	r.mu.Unlock()
	if !ok || c == nil {
		return errorResult(t.Server, fmt.Sprintf("task %s: the server is not connected", t.ID))
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)()
	st, err := c.getTask(cctx, t.ID)
	if err != nil {
		return errorResult(t.Server, capText(fmt.Sprintf("tasks/get %s: %v", t.ID, err), r.opts.ResultMaxBytes))
	}
	// Only CancelTask cancels it: ctx ending (agentls shutting down) leaves
	// the task to its server.
	return r.followTask(context.Background(), cctx, srv, c, key.Tool, st, &l)
}

// CancelTask asks the server to cancel a task handed back by Call.
func (r *Registry) CancelTask(t Task) {
	r.mu.Lock()
	srv := r.servers[t.Server]
	var c *conn
	if srv != nil && srv.state == Connected {
		c = srv.conn
	}
	r.mu.Unlock()
	if c != nil {
		c.cancelTask(t.ID)
	}
}
