package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

const rulesUsage = `usage: agentls rules list [--json] [--workspace DIR | --all]
       agentls rules revoke ID [--workspace DIR]

Rules are saved from a card's "Always allow" (a command's exact words, or
its words followed by paths inside its folder, shown "./*"; or writes in
one folder of a workspace) or "Always deny" (a command, or one file,
refused without a card from then on), per workspace folder, in the trust
store; no config file can add one. ID is as list prints it, e.g.
"command: npm run lint", "command: go test ./*", "write: src/api",
"deny command: rm -rf build" or "deny write: src/gen.go" (quote it: its
words may start with -).
`

// cmdRules is `agentls rules list|revoke`: the saved "always allow" rules,
// listed and forgotten from the terminal as agent/rules does in an editor.
func cmdRules(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stderr, rulesUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("agentls rules "+sub, flag.ContinueOnError)
	wsDir := fs.String("workspace", "", "workspace `folder` (default: the current directory)")
	fs.Usage = func() { fmt.Fprint(os.Stderr, rulesUsage) }
	var asJSON, all *bool
	if sub == "list" {
		asJSON = fs.Bool("json", false, "print {rules: [Rule]} as agent/rules answers it")
		all = fs.Bool("all", false, "every workspace's rules")
	} else if sub != "revoke" {
		fmt.Fprintf(os.Stderr, "agentls rules: unknown subcommand %q (expected list or revoke)\n\n%s", sub, rulesUsage)
		return 2
	}
	operands, code := parseArgs(fs, rest)
	if code >= 0 {
		return code
	}
	var folders []string
	if sub == "revoke" || !*all {
		root, err := workspaceRoot(*wsDir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls rules %s: %v\n", sub, err)
			return 1
		}
		folders = []string{root}
	}
	if sub == "revoke" {
		if len(operands) == 0 {
			fmt.Fprintf(os.Stderr, "agentls rules revoke: no rule id given\n\n%s", rulesUsage)
			return 2
		}
		id := strings.Join(operands, " ") // unquoted on a shell line, the id is several words
		revoked, err := agent.RevokeStoredRule(folders, id)
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls rules revoke: %v\n", err)
			return 1
		}
		for _, r := range revoked {
			fmt.Printf("revoked %s in %s\n", trust.VisibleText(r.ID), trust.VisibleText(r.Workspace))
		}
		return 0
	}
	if len(operands) > 0 {
		fmt.Fprintf(os.Stderr, "agentls rules list: unexpected argument %q\n\n%s", operands[0], rulesUsage)
		return 2
	}
	rules, err := agent.StoredRules(folders)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls rules list: %v\n", err)
		return 1
	}
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(wire.RulesResult{Rules: rules})
		return 0
	}
	if len(rules) == 0 {
		where := "any workspace"
		if len(folders) > 0 {
			where = folders[0]
		}
		fmt.Printf("no saved rules for %s (a card's \"Always allow\" saves one)\n", trust.VisibleText(where))
		return 0
	}
	for _, r := range rules {
		fmt.Printf("%s\t%s\t%s\n", trust.VisibleText(r.ID), trust.VisibleText(r.Workspace), r.AddedAt.Format("2006-01-02 15:04"))
	}
	return 0
}
