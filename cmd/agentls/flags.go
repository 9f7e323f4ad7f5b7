package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/agentls/agentls/config"
)

// configUnusable prints, for command cmd, why each config file that exists
// could not be used (unreadable, or not valid TOML) and reports whether
// there was one. A command does not go on without the config it was given:
// it would run with defaults the user did not choose (no servers, another
// model) and a script or an editor's health check would read success.
func configUnusable(cmd string, cfg *config.Config) bool {
	for _, d := range cfg.Unusable {
		fmt.Fprintf(os.Stderr, "agentls %s: config: %s\n", cmd, d)
	}
	return len(cfg.Unusable) > 0
}

// parseConfigWorkspace adds --config and --workspace to fs (which may hold
// other flags), parses args and resolves both: the user config path
// (defaulting as the editor does) and the workspace folder made absolute.
// code is -1 to go on, else the exit code after the message was printed.
func parseConfigWorkspace(fs *flag.FlagSet, args []string, usage string) (configPath, workspace string, code int) {
	fs.SetOutput(os.Stderr)
	cfgFlag := fs.String("config", "", "user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)")
	wsFlag := fs.String("workspace", "", "workspace folder (default the current directory)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return "", "", 0 // -h asked for the usage, which flag printed
	} else if err != nil {
		return "", "", 2 // flag printed what was wrong and the usage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "agentls %s: unexpected argument %q (usage: %s)\n", fs.Name(), fs.Arg(0), usage)
		return "", "", 2
	}
	configPath = *cfgFlag
	if configPath == "" {
		configPath = config.UserPath()
	}
	workspace, err := workspaceRoot(*wsFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls %s: %v (--workspace DIR must name an existing folder)\n", fs.Name(), err)
		return "", "", 2
	}
	return configPath, workspace, -1
}
