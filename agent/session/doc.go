// Package session owns a workspace's stored conversations: the session
// files (JSONL, one message a line, repaired on load), the history rules
// a stored conversation keeps (ValidHistory, interrupted turns settled
// before they are sent), the index beside them for listings, the turn
// journal that survives a crash, the compaction view, retention's view of
// the folder, and the Markdown transcript people read (redacted).
//
// It never talks to a model, runs a tool or asks the user, and it never
// decides what a session may do: the core (package agent) holds sessions
// while a task runs in them and applies the retention policy through it.
package session
