package agent

import (
	"context"
	"fmt"
	"github.com/agentls/agentls/wire"
	"os"
	"path/filepath"
	"strings"
	"sync"

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
type transcript struct {
	mu     sync.Mutex
	path   string
	err    error       // the first write error; later writes are skipped
	onFail func(error) // told of that first error; nil: nobody
}

func transcriptPath(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "transcripts", sessionID+".md")
}

func openTranscript(stateDir, sessionID string) *transcript {
	return &transcript{path: transcriptPath(stateDir, sessionID)}
}

func (t *transcript) write(s string) {
	t.writeRedacted(trust.Redact(s))
}

// writeRedacted appends text already redacted.
func (t *transcript) writeRedacted(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		t.fail(err)
		return
	}
	f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.fail(err)
		return
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.fail(err)
	}
}

// fail records the first write error and says it; t.mu is held.
func (t *transcript) fail(err error) {
	t.err = err
	if t.onFail != nil {
		t.onFail(err)
	}
}

// failed says whether a write failed since the transcript was opened (or
// last rebuilt).
func (t *transcript) failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err != nil
}

// prompt writes the user's prompt. A prompt may be megabytes: its
// redaction stops when ctx ends (the task was cancelled), and then the
// transcript says so instead.
func (t *transcript) prompt(ctx context.Context, taskID, prompt string) {
	red, err := trust.RedactContext(ctx, prompt)
	if err != nil {
		red = fmt.Sprintf("[a prompt of %s, not written: the task was cancelled]", byteSize(len(prompt)))
	}
	t.writeRedacted(fmt.Sprintf("\n## User (%s)\n\n%s\n", taskID, red))
}

func (t *transcript) assistant(text string) {
	if strings.TrimSpace(text) != "" {
		t.write("\n## Assistant\n\n" + text + "\n")
	}
}

// reasoning writes the model's reasoning folded (a <details> block, closed
// by default where the Markdown is rendered) and marked as reasoning, so
// nobody reads it as the answer.
func (t *transcript) reasoning(text string) {
	if strings.TrimSpace(text) != "" {
		t.write("\n<details><summary>Reasoning</summary>\n\n" + fence("", text) + "\n\n</details>\n")
	}
}

func (t *transcript) toolCall(title string, redactedArgs []byte) {
	t.write(fmt.Sprintf("\n### Tool call: %s\n\n%s\n", title, fence("json", string(redactedArgs))))
}

func (t *transcript) toolResult(status wire.ToolStatus, output string) {
	t.write(fmt.Sprintf("\n### Result (%s)\n\n%s\n", status, fence("", output)))
}

func (t *transcript) end(stopReason wire.StopReason, errMsg string, u Usage) {
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
func (t *transcript) serverLog(s string) {
	t.write("\n> server log: " + strings.ReplaceAll(s, "\n", " ") + "\n")
}

// note records something agentls did to the conversation (a compaction).
func (t *transcript) note(s string) {
	t.write("\n> agentls: " + s + "\n")
}

// fence wraps text in a code fence longer than any backtick run inside it,
// so repo- or tool-authored text can never close the fence early.
func fence(lang, text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}
