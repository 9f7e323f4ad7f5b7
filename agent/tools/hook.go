package tools

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/agentls/agentls/config"
)

// HookOutputMax caps what of a hook's output is read (the model is shown
// at most HookShownMax characters of it).
const (
	HookOutputMax = 16 << 10
	HookShownMax  = 2000
)

// HookRun is how one run of a hook ended.
type HookRun struct {
	Output   string // stdout and stderr, trimmed, capped
	ExitCode int
	// Err says why the hook did not run to an exit status (it could not
	// start, be confined, or timed out); ExitCode is then -1.
	Err error
}

// RunHook runs hook h in the first workspace folder with event (JSON) in
// AGENTLS_HOOK_EVENT, confined as a card-less run_command is unless the
// user's entry says sandbox = "none". A confined hook where the kernel
// cannot confine does not run (Err says why).
func RunHook(ctx context.Context, env *Env, h config.Hook, event []byte) HookRun {
	fail := func(err error) HookRun { return HookRun{ExitCode: -1, Err: err} }
	folders, err := usableFolders(env.Workspace.Folders())
	if err != nil {
		return fail(err)
	}
	if len(folders) == 0 {
		return fail(errors.New("no workspace folder to run it in"))
	}
	runEnv := append(commandEnv(env.HideEnv), "AGENTLS_HOOK_EVENT="+string(event))
	var res procResult
	if h.Sandbox == config.HookUnconfined {
		if _, err := exec.LookPath(h.Command[0]); err != nil {
			return fail(err)
		}
		res, err = runProcess(ctx, h.Command, folders[0], runEnv, h.Timeout, HookOutputMax)
	} else {
		c, cerr := confineCommand(h.Command, folders, runEnv, env.SandboxRead)
		if cerr != nil {
			return fail(fmt.Errorf("it cannot be confined here (%v): set sandbox = \"none\" in its entry to run it with your full access", cerr))
		}
		res, err = c.run(ctx, folders[0], h.Timeout, HookOutputMax)
	}
	switch {
	case err != nil:
		return fail(err)
	case res.TimedOut:
		return fail(fmt.Errorf("it did not end within its timeout (%s), so its process group was killed", h.Timeout))
	case res.Cancelled:
		return fail(context.Canceled)
	}
	return HookRun{Output: strings.TrimSpace(res.Output), ExitCode: res.ExitCode}
}

// Name is how a hook is named in what the model and the log read.
func HookName(h config.Hook) string {
	return string(h.Event) + " hook " + FirstLine(strings.Join(h.Command, " "), 80)
}
