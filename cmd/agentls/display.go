package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// What agentls prints on a terminal may carry strings a repository or an
// MCP server wrote (a cwd, env names, an error, stderr, a tool name). Each
// goes through oneLine or trust.VisibleText at the point it is printed, so
// an escape sequence, a carriage return or a bidi override cannot draw a
// fake line or hide a real one, however the string got there.

// lineEscapes are the characters oneLine escapes on top of VisibleText's.
var lineEscapes = strings.NewReplacer("\n", `\n`, "\t", `\t`)

// oneLine is s for one line of the terminal: every character a terminal
// would not show as itself escaped, newlines and tabs included, so s
// can neither draw nor break a line.
func oneLine(s string) string { return lineEscapes.Replace(trust.VisibleText(s)) }

// oneLines is oneLine of each string.
func oneLines(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = oneLine(s)
	}
	return out
}

// logf is the Logf of the fronts of this binary: the message (which names
// servers and quotes their errors and stderr) as one escaped line.
func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "agentls: %s\n", oneLine(fmt.Sprintf(format, a...)))
}

// printCard writes a card's title and detail, escaped as VisibleText does
// (a card is built escaped already; this is the second wall).
func printCard(w io.Writer, a wire.Approval) {
	fmt.Fprintf(w, "%s\n%s\n", oneLine(a.Title), trust.VisibleText(a.Detail))
}
