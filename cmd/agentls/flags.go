package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/agentls/agentls/config"
)

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
