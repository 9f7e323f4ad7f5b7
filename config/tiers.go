package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/model/providers"
	"github.com/agentls/agentls/wire"
)

var (
	topKeys      = []string{"model", "agent", "sessions", "mcp", "sandbox", "prices", "hooks", "serve"}
	sessionsKeys = []string{"keep", "max_age"}
	modelKeys    = []string{"provider", "name", "base_url", "api_key_env", "max_tokens", "context_window", "max_tools", "images", "stream_idle_timeout", "max_tokens_field", "thinking"}
	agentKeys    = []string{"max_iterations", "mode", "autopilot", "approval_timeout", "keep_directive"}
	mcpKeys      = []string{"startup_wait", "connect_timeout", "result_max_bytes", "max_image_bytes", "description_max_chars", "max_tools_per_server", "tool_budget_tokens", "log_level", "oauth_client_metadata_url", "servers", "policy"}
)

// userTier applies the trusted user file: every key of docs/config.md is allowed.
func (l *loader) userTier(f *tomlFile) {
	for _, k := range sortedKeys(f.data) {
		v, path := f.data[k], []string{k}
		switch k {
		case "model":
			if t := l.section(f, path, v); t != nil {
				l.model(f, t)
			}
		case "agent":
			if t := l.section(f, path, v); t != nil {
				l.agent(f, t)
			}
		case "sessions":
			if t := l.section(f, path, v); t != nil {
				l.sessions(f, t)
			}
		case "mcp":
			if t := l.section(f, path, v); t != nil {
				l.mcp(f, t)
			}
		case "sandbox":
			if t := l.section(f, path, v); t != nil {
				l.sandbox(f, t)
			}
		case "prices":
			if t := l.section(f, path, v); t != nil {
				l.prices(f, t)
			}
		case "hooks":
			if t := l.section(f, path, v); t != nil {
				l.hooks(f, t)
			}
		case "serve":
			if t := l.section(f, path, v); t != nil {
				l.serve(f, t)
			}
		default:
			l.diag(f, SeverityWarning, path, unknownKey(topKeys))
		}
	}
}

// workspaceTier applies a repo-authored file. It may only declare servers
// (which never start without consent) and tighten policy.
func (l *loader) workspaceTier(f *tomlFile) {
	for _, k := range sortedKeys(f.data) {
		v, path := f.data[k], []string{k}
		switch k {
		case "mcp":
			if t := l.section(f, path, v); t != nil {
				l.mcp(f, t)
			}
		case "model":
			l.workspaceModel(f, v)
		case "agent", "sessions", "sandbox", "prices", "hooks", "serve":
			l.userOnly(f, path, v)
		default:
			l.diag(f, SeverityWarning, path, unknownKey(topKeys))
		}
	}
}

// workspaceModel refuses a repository's [model]: its keys are ignored
// with a warning, and a profile it declares is an error. A profile names
// the endpoint prompts, code and tool results are sent to, and which key
// goes with them: a cloned repository's profile, picked in an editor,
// would hand the session to the repository's own server (base_url) with
// the user's key (api_key_env).
func (l *loader) workspaceModel(f *tomlFile, v any) {
	t, ok := v.(map[string]any)
	if !ok {
		l.userOnly(f, []string{"model"}, v)
		return
	}
	rest := map[string]any{}
	for k, x := range t {
		if k != "profiles" {
			rest[k] = x
			continue
		}
		names, _ := x.(map[string]any)
		if len(names) == 0 {
			names = map[string]any{"": nil}
		}
		for _, name := range sortedKeys(names) {
			p := []string{"model", "profiles"}
			if name != "" {
				p = append(p, name)
			}
			l.diag(f, SeverityError, p, "refused: a repository's config cannot define a model profile, which would choose the endpoint your prompts, code and tool results are sent to (base_url) and the API key sent with them (api_key_env); define profiles in the user config ([model.profiles.NAME]); the profile was not added")
		}
	}
	if len(rest) > 0 {
		l.userOnly(f, []string{"model"}, rest)
	}
}

// userOnly warns about every key of v that a workspace file tried to set.
func (l *loader) userOnly(f *tomlFile, path []string, v any) {
	t, ok := v.(map[string]any)
	if !ok || len(t) == 0 {
		l.diag(f, SeverityWarning, path, ignoredInWorkspace(path))
		return
	}
	for _, k := range sortedKeys(t) {
		p := append(append([]string{}, path...), k)
		l.diag(f, SeverityWarning, p, ignoredInWorkspace(p))
	}
}

// ignoredInWorkspace says why a workspace file may not set a key.
func ignoredInWorkspace(path []string) string {
	why := "a repository must not raise agentls's limits"
	switch {
	case path[0] == "model":
		// Stops a cloned repo from sending prompts and the API key to its own endpoint.
		why = "a repository must not choose the model, its base URL or which API key is sent"
	case path[0] == "sandbox":
		// Stops a repo from opening the user's folders to its own confined servers.
		why = "a repository must not choose what confined programs may read"
	case path[0] == "serve":
		// Stops a repo from opening a listener on your machine.
		why = "a repository must not make your editor listen for outside agents"
	case path[0] == "prices":
		why = "a repository must not say what your tokens cost"
	case path[0] == "sessions":
		// Stops a repo from deleting the user's stored conversations.
		why = "a repository must not decide which of your sessions are deleted"
	case path[0] == "agent" && len(path) > 1 && path[1] == "autopilot":
		// Stops a repo from switching off the approval prompts that guard it.
		why = "a repository must not turn on autopilot"
	case path[0] == "agent" && len(path) > 1 && path[1] == "mode":
		// Stops a repo from choosing a mode that skips cards (auto-edit).
		why = "a repository must not choose the mode, which decides what runs without a card"
	case path[len(path)-1] == "oauth_client_metadata_url":
		// Stops a repo from choosing the client identity the user's authorization servers see and consent to.
		why = "a repository must not choose the OAuth client agentls says it is"
	case path[0] == "hooks":
		// Stops a repo from running its own program before every call.
		why = "a repository must not define hooks, which run programs on your calls"
	}
	return fmt.Sprintf("ignored: only the user config may set this; a workspace config cannot loosen anything (%s)", why)
}

func (l *loader) section(f *tomlFile, path []string, v any) map[string]any {
	t, err := asTable(v, fmt.Sprintf("a table [%s]", displayKey(path)))
	if err != nil {
		l.diag(f, SeverityError, path, err.Error()+"; the section was ignored")
		return nil
	}
	return t
}

func (l *loader) model(f *tomlFile, t map[string]any) {
	if v, ok := t["profiles"]; ok {
		l.profiles(f, v)
	}
	l.modelTable(f, t, &l.cfg.Model, []string{"model"})
}

// profileName is what a profile's name may be: it is typed in pickers and
// commands (`agentls run --model NAME`).
var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// profiles reads the [model.profiles.NAME] tables of the user file.
func (l *loader) profiles(f *tomlFile, v any) {
	path := []string{"model", "profiles"}
	t := l.section(f, path, v)
	for _, name := range sortedKeys(t) {
		p := []string{"model", "profiles", name}
		switch {
		case name == DefaultProfile:
			l.diag(f, SeverityError, p, fmt.Sprintf("the profile name %q is the [model] table itself: name this profile otherwise; the profile was ignored", DefaultProfile))
			continue
		case !profileName.MatchString(name):
			l.diag(f, SeverityError, p, fmt.Sprintf("bad profile name %q: expected letters, digits, '.', '-' or '_' (at most 64, starting with a letter or digit), e.g. [model.profiles.fast]; the profile was ignored", name))
			continue
		}
		pt := l.section(f, p, t[name])
		if pt == nil {
			continue
		}
		var m Model
		l.modelTable(f, pt, &m, p)
		if l.cfg.Profiles == nil {
			l.cfg.Profiles = map[string]Model{}
		}
		l.cfg.Profiles[name] = m
	}
}

// modelTable reads one model table, [model] or a profile of it, at path.
func (l *loader) modelTable(f *tomlFile, t map[string]any, m *Model, at []string) {
	top := len(at) == 1
	for _, k := range sortedKeys(t) {
		v, path := t[k], append(append([]string{}, at...), k)
		var err error
		switch k {
		case "profiles":
			if top {
				continue // read by model
			}
			l.diag(f, SeverityWarning, path, "a profile cannot hold profiles: declare each as [model.profiles.NAME]")
			continue
		case "provider":
			var s string
			if s, err = asString(v); err == nil {
				if _, ok := providers.Lookup(s); s != "" && !ok {
					err = fmt.Errorf("unknown provider %q: expected %s (\"openai\" with a base_url is any OpenAI-compatible endpoint), or leave it out to pick one from the environment and base_url", s, providers.Quoted())
				} else {
					m.Provider = s
				}
			}
		case "name":
			m.Name, err = asString(v)
		case "base_url":
			var s string
			if s, err = asString(v); err == nil {
				if u, perr := url.Parse(s); s != "" && (perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
					err = fmt.Errorf("invalid base URL %q: expected an http:// or https:// URL like \"http://127.0.0.1:11434/v1\"", s)
				} else {
					m.BaseURL = s
				}
			}
		case "api_key_env":
			var s string
			if s, err = asString(v); err == nil {
				if s != "" && !isEnvName(s) {
					// Never echo the value: the usual mistake is pasting the key itself here.
					err = fmt.Errorf("expected the name of an environment variable (like \"ANTHROPIC_API_KEY\"), not the key itself; the value is not shown")
				} else {
					m.APIKeyEnv = s
				}
			}
		case "max_tokens":
			var n int
			if n, err = asPositiveInt(v); err == nil {
				m.MaxTokens = n
			}
		case "context_window":
			var n int
			if n, err = asPositiveInt(v); err == nil {
				if n < 1024 {
					err = fmt.Errorf("a context window of %d tokens is too small to hold a conversation: expected the model's window in tokens, at least 1024 (e.g. 32768)", n)
				} else {
					m.ContextWindow = n
				}
			}
		case "max_tools":
			var n int
			if n, err = asPositiveInt(v); err == nil {
				m.MaxTools = n
			}
		case "images":
			var b bool
			if b, err = asBool(v); err == nil {
				m.Images = &b
			}
		case "stream_idle_timeout":
			var d time.Duration
			if d, err = asDuration(v); err == nil {
				m.StreamIdleTimeout = d
			}
		case "max_tokens_field":
			var s string
			if s, err = asString(v); err == nil {
				if !slices.Contains(MaxTokensFields, s) {
					err = fmt.Errorf("max_tokens_field %q: expected %q or %q (the chat completions field of the output budget)", s, MaxTokensFields[0], MaxTokensFields[1])
				} else {
					m.MaxTokensField = s
				}
			}
		case "thinking":
			var n int
			if n, err = asThinking(v); err == nil {
				// provider sorts before thinking, so a provider of this
				// table is known here; one picked from base_url or the
				// environment is checked when the model is resolved.
				if p, ok := providers.Lookup(m.Provider); ok && n > 0 && p.Wire != providers.Messages {
					err = fmt.Errorf("thinking = %d is the extended thinking of Anthropic's Messages wire, and provider %q (%s) speaks %s: remove it (a reasoning model there thinks by itself; its reasoning is shown as it streams)", n, p.Name, p.Title, p.Wire)
				} else {
					m.Thinking = n
				}
			}
		default:
			keys := modelKeys
			if top {
				keys = append(slices.Clip(keys), "profiles")
			}
			l.diag(f, SeverityWarning, path, unknownKey(keys))
			continue
		}
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; the default is used")
		}
	}
}

// MinThinkingBudget is the smallest budget Anthropic's extended thinking takes.
const MinThinkingBudget = 1024

// asThinking reads [model] thinking: "off" (0), or a budget in tokens.
func asThinking(v any) (int, error) {
	if s, ok := v.(string); ok {
		if strings.EqualFold(strings.TrimSpace(s), "off") {
			return 0, nil
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			// Printed as %v it would read as the valid budget it looks like.
			return 0, fmt.Errorf("thinking = %q is a string: write the budget as a number, without quotes (thinking = %d), or \"off\"", s, n)
		}
		return 0, fmt.Errorf("thinking = %q: expected \"off\" or a budget of at least %d tokens for the model's extended thinking (e.g. 8000)", s, MinThinkingBudget)
	}
	n, ok := v.(int64)
	if !ok || n < MinThinkingBudget || n > 1<<31-1 {
		return 0, fmt.Errorf("thinking = %v: expected \"off\" or a budget of at least %d tokens for the model's extended thinking (e.g. 8000)", v, MinThinkingBudget)
	}
	return int(n), nil
}

func (l *loader) agent(f *tomlFile, t map[string]any) {
	a := &l.cfg.Agent
	for _, k := range sortedKeys(t) {
		v, path := t[k], []string{"agent", k}
		var err error
		switch k {
		case "max_iterations":
			var n int
			if n, err = asPositiveInt(v); err == nil {
				a.MaxIterations = n
			}
		case "mode":
			var s string
			if s, err = asString(v); err == nil {
				var m wire.Mode
				if m, err = wire.ParseMode(s); err == nil {
					a.Mode, l.modeSet = m, true
				}
			}
		case "autopilot":
			var b bool
			if b, err = asBool(v); err == nil {
				a.Autopilot = b
			}
		case "approval_timeout":
			var d time.Duration
			if d, err = asDuration(v); err == nil {
				a.ApprovalTimeout = d
			}
		case "keep_directive":
			var b bool
			if b, err = asBool(v); err == nil {
				a.KeepDirective = b
			}
		default:
			l.diag(f, SeverityWarning, path, unknownKey(agentKeys))
			continue
		}
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; the default is used")
		}
	}
}

func (l *loader) sessions(f *tomlFile, t map[string]any) {
	s := &l.cfg.Sessions
	for _, k := range sortedKeys(t) {
		v, path := t[k], []string{"sessions", k}
		var err error
		switch k {
		case "keep":
			err = setPositive(&s.Keep, v)
		case "max_age":
			var d time.Duration
			if d, err = asAge(v); err == nil {
				s.MaxAge = d
			}
		default:
			l.diag(f, SeverityWarning, path, unknownKey(sessionsKeys))
			continue
		}
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; the default is used")
		}
	}
}

func (l *loader) mcp(f *tomlFile, t map[string]any) {
	m := &l.cfg.MCP
	for _, k := range sortedKeys(t) {
		v, path := t[k], []string{"mcp", k}
		switch k {
		case "servers":
			l.servers(f, v)
			continue
		case "policy":
			l.policy(f, v)
			continue
		case "startup_wait", "connect_timeout", "result_max_bytes", "max_image_bytes", "description_max_chars", "max_tools_per_server", "tool_budget_tokens", "log_level", "oauth_client_metadata_url":
			if f.origin == Workspace {
				l.diag(f, SeverityWarning, path, ignoredInWorkspace(path))
				continue
			}
		default:
			l.diag(f, SeverityWarning, path, unknownKey(mcpKeys))
			continue
		}
		var err error
		switch k {
		case "startup_wait":
			var d time.Duration
			if d, err = asDuration(v); err == nil {
				m.StartupWait = d
			}
		case "connect_timeout":
			var d time.Duration
			if d, err = asDuration(v); err == nil {
				m.ConnectTimeout = d
			}
		case "result_max_bytes":
			err = setPositive(&m.ResultMaxBytes, v)
		case "max_image_bytes":
			err = setPositive(&m.MaxImageBytes, v)
		case "description_max_chars":
			err = setPositive(&m.DescriptionMaxChars, v)
		case "max_tools_per_server":
			err = setPositive(&m.MaxToolsPerServer, v)
		case "tool_budget_tokens":
			err = setPositive(&m.ToolBudgetTokens, v)
		case "oauth_client_metadata_url":
			m.OAuthClientMetadataURL, err = clientMetadataURL(v)
		case "log_level":
			var lv string
			if lv, err = asString(v); err == nil {
				if !slices.Contains(MCPLogLevels, lv) {
					err = fmt.Errorf("log_level %q: expected one of %s", lv, strings.Join(MCPLogLevels, ", "))
				} else {
					m.LogLevel = lv
				}
			}
		}
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; the default is used")
		}
	}
}

func setPositive(dst *int, v any) error {
	n, err := asPositiveInt(v)
	if err == nil {
		*dst = n
	}
	return err
}
