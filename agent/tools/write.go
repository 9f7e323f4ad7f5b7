package tools

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentls/agentls/wire"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/textdiff"
	"github.com/agentls/agentls/trust"
)

const writeTimeout = 30 * time.Second

var (
	writeFileTool = newBuiltin(builtin{kind: wire.KindEdit, gated: true},
		"write_file", "Create or replace a workspace file with content, its whole text. Always asks the user.", writeFile)
	editFileTool = newBuiltin(builtin{kind: wire.KindEdit, gated: true},
		"edit_file", "Replace old_text (exact, whitespace included; once unless replace_all) with new_text in a workspace file. Always asks the user.", editFile)
)

type writeFileArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"` // nil: not given ("" is an empty file)
}

type editFileArgs struct {
	Path       string `json:"path"`
	OldText    string `json:"old_text"`
	NewText    string `json:"new_text"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

func writeFile(ctx context.Context, env *Env, call Call, a *writeFileArgs) (string, error) {
	if a.Content == nil {
		return "", errors.New("write_file: content is required (the whole new text of the file)")
	}
	t, err := confine(env.Workspace.Folders(), a.Path)
	if err != nil {
		return "", err
	}
	base, err := readSnapshot(env.Workspace, t)
	if err != nil {
		return "", err
	}
	old, exists := base.Text, base.Exists
	verb := "Create"
	if exists {
		verb = "Overwrite"
	}
	// A card shows exactly what will be written, never redacted (a key
	// block would hide the line after it), with invisible characters
	// escaped so a \r or an escape sequence cannot overprint a line.
	title, head := writeCard(env.Workspace.Folders(), t, verb)
	detail := head + "\n\n" + trust.VisibleText(textdiff.Unified(old, *a.Content))
	diff := &wire.FileDiff{Path: t.Path, NewText: *a.Content}
	if exists {
		diff.OldText = &old
	}
	if err := gateWrite(ctx, env, call, t, "write_file", title, detail, diff); err != nil {
		return "", err
	}
	// A whole-file write cannot be re-applied: if the file changed since
	// the card, writing would lose that change, so it is refused.
	where, _, err := writeWithTimeout(ctx, env, "write_file", t, base, *a.Content, nil)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d bytes to %s (%s)", len(*a.Content), t.Path, where), nil
}

func editFile(ctx context.Context, env *Env, call Call, a *editFileArgs) (string, error) {
	if a.OldText == "" {
		return "", errors.New("edit_file: old_text is required and must not be empty (use write_file to create a file)")
	}
	t, err := confine(env.Workspace.Folders(), a.Path)
	if err != nil {
		return "", err
	}
	base, err := readSnapshot(env.Workspace, t)
	if err != nil {
		return "", err
	}
	if !base.Exists {
		return "", fmt.Errorf("edit_file: %s does not exist (use write_file to create a file)", a.Path)
	}
	old := base.Text
	n := strings.Count(old, a.OldText)
	switch {
	case n == 0:
		return "", fmt.Errorf("edit_file: old_text was not found in %s: read the file again and copy the text exactly", a.Path)
	case n > 1 && !a.ReplaceAll:
		return "", fmt.Errorf("edit_file: old_text occurs %d times in %s: add surrounding lines to make it unique, or set replace_all", n, a.Path)
	}
	updated := a.apply(old)
	title, head := writeCard(env.Workspace.Folders(), t, "Edit")
	// The card shows the change in the file, with its line numbers and
	// context, not the fragment alone: the same old_text may read very
	// differently where it lands.
	detail := head + "\n\n" + trust.VisibleText(textdiff.Unified(old, updated))
	diff := &wire.FileDiff{Path: t.Path, OldText: &old, NewText: updated}
	if err := gateWrite(ctx, env, call, t, "edit_file", title, detail, diff); err != nil {
		return "", err
	}
	// The user may have changed the file while the card was open: the
	// approved replacement is made again in the current text when old_text
	// still occurs there as often as it did, so their change is kept.
	rebase := func(current string) (string, error) {
		if got := strings.Count(current, a.OldText); got != n {
			return "", fmt.Errorf("old_text now occurs %d time(s) in it, not %d", got, n)
		}
		return a.apply(current), nil
	}
	where, rebased, err := writeWithTimeout(ctx, env, "edit_file", t, base, updated, rebase)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("replaced %d occurrence(s) in %s (%s)", n, t.Path, where)
	if rebased {
		msg += "; the file had changed while the edit waited for approval, so the replacement was made in its current text and the other changes were kept: read it again before editing near them"
	}
	return msg, nil
}

// apply makes the replacement in text.
func (a *editFileArgs) apply(text string) string {
	if a.ReplaceAll {
		return strings.ReplaceAll(text, a.OldText, a.NewText)
	}
	return strings.Replace(text, a.OldText, a.NewText, 1)
}

// gateWrite asks before a write when trust's decision says so. diff is the
// whole change, for fronts that show it as such (the editor receives the
// same text when the write goes through it).
func gateWrite(ctx context.Context, env *Env, call Call, t target, tool, title, detail string, diff *wire.FileDiff) error {
	d, offer, deny, root := decideWrite(env, t)
	_, err := call.Gate(ctx, d, wire.Approval{
		Kind: wire.ApprovalWrite, Tool: tool, Title: title, Detail: detail, Diff: diff,
		Rule: ruleID(offer), Options: ruleOptions(offer, deny),
	}, Keep{Root: root, Allow: offer, Deny: deny})
	return err
}

func writeWithTimeout(ctx context.Context, env *Env, tool string, t target, base Snapshot, text string, rebase rebaseFunc) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return commitWrite(ctx, env, tool, t, base, text, rebase)
}
