package config

import (
	"maps"
	"time"

	"github.com/agentls/agentls/wire"
)

// Defaults of docs/config.md, used for every key a config leaves out (or gets wrong).
const (
	DefaultMaxTokens           = 8192
	DefaultMaxIterations       = 25
	DefaultApprovalTimeout     = 5 * time.Minute
	DefaultStartupWait         = 5 * time.Second
	DefaultResultMaxBytes      = 65536
	DefaultMaxImageBytes       = 5 << 20
	DefaultDescriptionMaxChars = 1024
	DefaultMaxToolsPerServer   = 64
	DefaultConnectTimeout      = 30 * time.Second
	DefaultListTimeout         = 30 * time.Second
	DefaultCallTimeout         = 120 * time.Second
	DefaultMCPLogLevel         = "warning"
	// DefaultStreamIdleTimeout is how long a model's answer may send
	// nothing, headers included: generous, since a local server on a CPU
	// may process a long prompt for minutes before its first byte.
	DefaultStreamIdleTimeout = 5 * time.Minute
	// DefaultSessionsKeep is how many sessions a workspace keeps ([sessions]
	// keep): the newest, besides pinned ones and ones in use.
	DefaultSessionsKeep = 1000
	// DefaultMode is a new session's mode: every gate asks.
	DefaultMode = wire.ModeAsk
	// DefaultProfile names the [model] table itself among the model
	// profiles ([model.profiles.NAME]): a session's model until one is
	// chosen.
	DefaultProfile = "default"
)

// MaxTokensFields are the values [model] max_tokens_field takes.
var MaxTokensFields = []string{"max_tokens", "max_completion_tokens"}

// MCPLogLevels are the values [mcp] log_level takes, least severe first.
var MCPLogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Defaults is the configuration with no file at all.
func Defaults() *Config {
	c := Config{}.WithDefaults()
	c.Prices = maps.Clone(DefaultPrices)
	return &c
}

// WithDefaults is c with every limit it leaves unset (zero or less) at its
// default. It is the one place a default of docs/config.md is applied: Load
// starts from Defaults, and a Core made from a Config built by hand gets
// the same limits (a test's config names only what it changes).
func (c Config) WithDefaults() Config {
	c.Model = c.Model.withDefaults()
	c.Profiles = profilesWithDefaults(c.Profiles)
	c.Agent.MaxIterations = orDefault(c.Agent.MaxIterations, DefaultMaxIterations)
	c.Agent.ApprovalTimeout = orDefault(c.Agent.ApprovalTimeout, DefaultApprovalTimeout)
	if c.Agent.Mode == "" {
		// autopilot = true is the older spelling of mode = "autopilot".
		c.Agent.Mode = DefaultMode
		if c.Agent.Autopilot {
			c.Agent.Mode = wire.ModeAutopilot
		}
	}
	c.Sessions.Keep = orDefault(c.Sessions.Keep, DefaultSessionsKeep)
	c.MCP.StartupWait = orDefault(c.MCP.StartupWait, DefaultStartupWait)
	c.MCP.ResultMaxBytes = orDefault(c.MCP.ResultMaxBytes, DefaultResultMaxBytes)
	c.MCP.MaxImageBytes = orDefault(c.MCP.MaxImageBytes, DefaultMaxImageBytes)
	c.MCP.DescriptionMaxChars = orDefault(c.MCP.DescriptionMaxChars, DefaultDescriptionMaxChars)
	c.MCP.MaxToolsPerServer = orDefault(c.MCP.MaxToolsPerServer, DefaultMaxToolsPerServer)
	if c.MCP.LogLevel == "" {
		c.MCP.LogLevel = DefaultMCPLogLevel
	}
	return c
}

// profilesWithDefaults is a copy of profiles, each with its limits at
// their defaults where unset.
func profilesWithDefaults(profiles map[string]Model) map[string]Model {
	if len(profiles) == 0 {
		return profiles
	}
	out := make(map[string]Model, len(profiles))
	for name, p := range profiles {
		out[name] = p.withDefaults()
	}
	return out
}

// withDefaults is m with its limits at their defaults where unset.
func (m Model) withDefaults() Model {
	m.MaxTokens = m.EffectiveMaxTokens()
	m.StreamIdleTimeout = m.EffectiveStreamIdleTimeout()
	return m
}

// EffectiveMaxTokens is [model] max_tokens, or its default when unset.
func (m Model) EffectiveMaxTokens() int { return orDefault(m.MaxTokens, DefaultMaxTokens) }

// EffectiveStreamIdleTimeout is [model] stream_idle_timeout, or its
// default when unset.
func (m Model) EffectiveStreamIdleTimeout() time.Duration {
	return orDefault(m.StreamIdleTimeout, DefaultStreamIdleTimeout)
}

// EffectiveConnectTimeout is the server's connect_timeout, or the default
// when unset (a Server built by hand, not loaded).
func (s Server) EffectiveConnectTimeout() time.Duration {
	return orDefault(s.ConnectTimeout, DefaultConnectTimeout)
}

// EffectiveListTimeout is the server's list_timeout, or the default when unset.
func (s Server) EffectiveListTimeout() time.Duration {
	return orDefault(s.ListTimeout, DefaultListTimeout)
}

// EffectiveCallTimeout is the server's call_timeout, or the default when unset.
func (s Server) EffectiveCallTimeout() time.Duration {
	return orDefault(s.CallTimeout, DefaultCallTimeout)
}

// orDefault is v, or def when v is unset (zero or less).
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
