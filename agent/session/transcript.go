package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/trust"
)

// transcript is a session's Markdown log for people, written as the task
// goes. Everything goes through trust.Redact first: transcripts are files a
// user may paste anywhere, and tool arguments and results carry secrets.
//
// A write that fails (a full disk) is said once where the user sees it
// (onFail), and later writes of the task are skipped rather than torn
// further; the transcript is rebuilt whole from the session file, which
// keeps every turn, as soon as it can be written again (transcript_rebuild.go).
type Transcript struct {
	mu     sync.Mutex
	Path   string
	held   heldFile    // Path, open from the first write until Close
	err    error       // the first write error; later writes are skipped
	OnFail func(error) // told of that first error; nil: nobody
}

func TranscriptPath(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "transcripts", sessionID+".md")
}

// OpenTranscript is session sessionID's transcript; its file is opened at
// the first write and held until Close.
func OpenTranscript(stateDir, sessionID string) *Transcript {
	path := TranscriptPath(stateDir, sessionID)
	return &Transcript{Path: path, held: heldFile{path: path, flag: os.O_WRONLY | os.O_CREATE | os.O_APPEND}}
}

// Close closes the transcript's file; a later write opens it again.
func (t *Transcript) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held.close()
}

func (t *Transcript) write(s string) {
	t.writeRedacted(trust.Redact(s))
}

// writeRedacted appends text already redacted.
func (t *Transcript) writeRedacted(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	f, err := t.held.file()
	if err == nil {
		_, err = f.WriteString(s)
	}
	if err != nil {
		t.held.close()
		t.fail(err)
	}
}

// fail records the first write error and says it; t.mu is held.
func (t *Transcript) fail(err error) {
	t.err = err
	if t.OnFail != nil {
		t.OnFail(err)
	}
}

// failed says whether a write failed since the transcript was opened (or
// last rebuilt).
func (t *Transcript) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err != nil
}

// prompt writes the user's prompt. A prompt may be megabytes: its
// redaction stops when ctx ends (the task was cancelled), and then the
// transcript says so instead.
func (t *Transcript) Prompt(ctx context.Context, taskID, prompt string) {
	red, err := trust.RedactContext(ctx, prompt)
	if err != nil {
		red = fmt.Sprintf("[a prompt of %s, not written: the task was cancelled]", trust.ByteSize(len(prompt)))
	}
	t.writeRedacted(fmt.Sprintf("\n## User (%s)\n\n%s\n", taskID, red))
}

func (t *Transcript) Assistant(text string) {
	if strings.TrimSpace(text) != "" {
		t.write("\n## Assistant\n\n" + text + "\n")
	}
}

// reasoning writes the model's reasoning folded (a <details> block, closed
// by default where the Markdown is rendered) and marked as reasoning, so
// nobody reads it as the answer.
func (t *Transcript) Reasoning(text string) {
	if strings.TrimSpace(text) != "" {
		t.write("\n<details><summary>Reasoning</summary>\n\n" + tools.Fence("", text) + "\n\n</details>\n")
	}
}

func (t *Transcript) ToolCall(title string, redactedArgs []byte) {
	t.write(fmt.Sprintf("\n### Tool call: %s\n\n%s\n", title, tools.Fence("json", string(redactedArgs))))
}

func (t *Transcript) ToolResult(status wire.ToolStatus, output string) {
	t.write(fmt.Sprintf("\n### Result (%s)\n\n%s\n", status, tools.Fence("", output)))
}

func (t *Transcript) End(stopReason wire.StopReason, errMsg string, u wire.Usage) {
	line := "\n---\n*" + string(stopReason)
	if errMsg != "" {
		line += ": " + errMsg
	}
	line += fmt.Sprintf(" · tokens in %d (cache read %d, cache write %d), out %d", u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens)
	if u.ContextWindow > 0 {
		line += fmt.Sprintf(" · context %d of %d", u.ContextTokens, u.ContextWindow)
	}
	t.write(line + "*\n")
}

// serverLog records a log message an MCP server sent while a call ran.
func (t *Transcript) ServerLog(s string) {
	t.write("\n> server log: " + strings.ReplaceAll(s, "\n", " ") + "\n")
}

// note records something agentls did to the conversation (a compaction).
func (t *Transcript) Note(s string) {
	t.write("\n> agentls: " + s + "\n")
}
