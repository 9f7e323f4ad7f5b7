package config

import (
	"os"
	"path/filepath"
)

// UserPath is the user config file: $AGENTLS_CONFIG, else
// $XDG_CONFIG_HOME/agentls/config.toml, else ~/.config/agentls/config.toml.
// A relative $XDG_CONFIG_HOME is ignored, as the XDG spec asks.
func UserPath() string {
	if p := os.Getenv("AGENTLS_CONFIG"); p != "" {
		return p
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentls", "config.toml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "agentls", "config.toml")
}

// StateDir is $XDG_STATE_HOME/agentls, else ~/.local/state/agentls. A
// relative $XDG_STATE_HOME is ignored.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentls")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "agentls")
}

// WorkspacePath is the workspace-tier config file of a workspace root.
func WorkspacePath(root string) string {
	return filepath.Join(root, ".agentls", "config.toml")
}
