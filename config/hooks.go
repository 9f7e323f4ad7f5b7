package config

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// HookEvent is when a hook runs.
type HookEvent string

// The events a hook may run at ([hooks] in docs/config.md).
const (
	// HookBeforeTool runs before a tool call's gate; exit status 2 denies
	// the call, with the hook's output as the reason the model sees.
	HookBeforeTool HookEvent = "before_tool"
	// HookAfterTool runs after a call ended; its output is added to the
	// call's result.
	HookAfterTool HookEvent = "after_tool"
	// HookTurnEnd runs when a turn ends, before its done event.
	HookTurnEnd HookEvent = "turn_end"
)

// HookEvents are the tables [hooks] takes, in the order they run.
var HookEvents = []HookEvent{HookBeforeTool, HookAfterTool, HookTurnEnd}

// DefaultHookTimeout bounds one run of a hook that sets no timeout.
const DefaultHookTimeout = 30 * time.Second

// Hook sandbox values: how a hook is confined.
const (
	// HookConfined runs a hook as a command autopilot runs without a card:
	// it reads the workspace and the system's files, writes nothing, and
	// has no network.
	HookConfined = "workspace-read"
	// HookUnconfined runs a hook with your full access.
	HookUnconfined = "none"
)

var hookKeys = []string{"command", "tools", "timeout", "sandbox"}

// Hook is one [[hooks.EVENT]] entry of the user config (never of a
// workspace's: a repository that could name a hook would run its own
// program on every call).
type Hook struct {
	Event HookEvent
	// Command is the argv, run without a shell; "~/" starts the home folder.
	Command []string
	// Tools are patterns (path.Match syntax, like [mcp.policy]) of the tool
	// names it runs for; empty: every tool. Unused for turn_end.
	Tools   []string
	Timeout time.Duration
	// Sandbox is HookConfined or HookUnconfined.
	Sandbox string
	Source  Source
}

// Matches reports whether h runs for a call of tool.
func (h Hook) Matches(tool string) bool {
	if len(h.Tools) == 0 {
		return true
	}
	for _, p := range h.Tools {
		if ok, err := path.Match(p, tool); err == nil && ok {
			return true
		}
	}
	return false
}

// Hooks are the [hooks] of the user config, by event, in file order.
type Hooks map[HookEvent][]Hook

// hooks applies the user file's [hooks] table.
func (l *loader) hooks(f *tomlFile, t map[string]any) {
	for _, k := range sortedKeys(t) {
		p := []string{"hooks", k}
		ev := HookEvent(k)
		known := false
		for _, e := range HookEvents {
			known = known || e == ev
		}
		if !known {
			names := make([]string, len(HookEvents))
			for i, e := range HookEvents {
				names[i] = string(e)
			}
			l.diag(f, SeverityWarning, p, unknownKey(names))
			continue
		}
		entries, ok := t[k].([]map[string]any)
		if !ok {
			l.diag(f, SeverityError, p, wrongType(t[k], fmt.Sprintf("an array of tables [[hooks.%s]] with command = [\"program\", \"arg\"]", k)).Error()+"; no hook of it was loaded")
			continue
		}
		for i, e := range entries {
			if h, err := hookEntry(ev, e); err != nil {
				l.diag(f, SeverityError, p, fmt.Sprintf("entry %d: %v; the hook was dropped", i+1, err))
			} else {
				h.Source = f.source(p)
				if l.cfg.Hooks == nil {
					l.cfg.Hooks = Hooks{}
				}
				l.cfg.Hooks[ev] = append(l.cfg.Hooks[ev], h)
			}
		}
	}
}

func hookEntry(ev HookEvent, e map[string]any) (Hook, error) {
	h := Hook{Event: ev, Timeout: DefaultHookTimeout, Sandbox: HookConfined}
	for _, k := range sortedKeys(e) {
		var err error
		switch k {
		case "command":
			if h.Command, err = asStrings(e[k]); err == nil {
				err = hookCommand(h.Command)
			}
		case "tools":
			if h.Tools, err = asStrings(e[k]); err == nil {
				for _, p := range h.Tools {
					if _, merr := path.Match(p, ""); merr != nil || p == "" {
						err = fmt.Errorf("tools: invalid pattern %q: expected a tool name like \"run_command\" or a glob like \"fs__*\"", p)
					}
				}
			}
		case "timeout":
			var d time.Duration
			if d, err = asDuration(e[k]); err == nil {
				if d <= 0 {
					err = fmt.Errorf("timeout %s: expected a positive duration like \"10s\"", d)
				} else {
					h.Timeout = d
				}
			}
		case "sandbox":
			var s string
			if s, err = asString(e[k]); err == nil {
				if s != HookConfined && s != HookUnconfined {
					err = fmt.Errorf("sandbox %q: expected %q (reads the workspace, writes nothing, no network) or %q (your full access)", s, HookConfined, HookUnconfined)
				} else {
					h.Sandbox = s
				}
			}
		default:
			err = fmt.Errorf("%s: %s", k, unknownKey(hookKeys))
		}
		if err != nil {
			return Hook{}, err
		}
	}
	if len(h.Command) == 0 {
		return Hook{}, fmt.Errorf("command is required: expected command = [\"program\", \"arg\"]")
	}
	if ev == HookTurnEnd && len(h.Tools) > 0 {
		return Hook{}, fmt.Errorf("tools: a turn_end hook runs once per turn, not per tool: remove tools")
	}
	return h, nil
}

// hookCommand checks a hook's argv and expands "~/" in its program.
func hookCommand(argv []string) error {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return fmt.Errorf("command is empty: expected command = [\"program\", \"arg\"]")
	}
	if strings.HasPrefix(argv[0], "~/") {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return fmt.Errorf("command %q: there is no home folder to expand ~ in", argv[0])
		}
		argv[0] = filepath.Join(home, argv[0][2:])
	}
	if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		// Relative to what? The workspace is a repository's to fill.
		return fmt.Errorf("command %q is a relative path: give the program's name (found on PATH) or an absolute path (\"~/bin/hook\" works)", argv[0])
	}
	return nil
}
