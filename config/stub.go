package config

// STUB: the contract other packages compile against. The config owner
// replaces the bodies; the signatures may grow but should not change.

import "errors"

// UserPath is the user config file: $AGENTLS_CONFIG, else
// $XDG_CONFIG_HOME/agentls/config.toml, else ~/.config/agentls/config.toml.
func UserPath() string { return "" }

// StateDir is $XDG_STATE_HOME/agentls, else ~/.local/state/agentls.
func StateDir() string { return "" }

// Load reads the user file (missing is fine) and <root>/.agentls/config.toml
// of each workspace root. It never fails: problems are in Diagnostics.
func Load(userPath string, workspaceRoots []string) *Config { return &Config{} }

// ExpandEnv expands ${VAR} and ${VAR:-default}. An unset ${VAR} with no
// default is an error that names the variable.
func ExpandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	return "", errors.New("unimplemented")
}

// ExpandedEnv is the server's env with every value expanded.
func (s Server) ExpandedEnv(lookup func(string) (string, bool)) (map[string]string, error) {
	return nil, errors.New("unimplemented")
}
