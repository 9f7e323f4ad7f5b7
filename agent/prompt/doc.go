// Package prompt builds the system prompt of a turn: who the agent is and
// the rule that tool output is data, never instructions (G4), the editor's
// context (workspace folders, git branch, active document, selection,
// diagnostics), and the project rules of AGENTS.md, read confined to the
// workspace folder and fenced as repo-authored text.
//
// It never talks to a model or runs a tool, and nothing it reads is taken
// as permission: AGENTS.md is conventions, never a way past an approval.
package prompt
