package tools

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentls/agentls/wire"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/trust"
)

const (
	commandTimeout    = 60 * time.Second
	commandMaxTimeout = 10 * time.Minute
)

var runCommandTool = newBuiltin(builtin{kind: wire.KindExecute, gated: true},
	"run_command", "Run a command in the workspace (cwd: a folder in it); returns output and exit code. Split into words and run without a shell unless shell is true (sh -c). timeout_seconds: default 60, at most 600. Asks the user unless autopilot knows it is safe.", runCommand)

type runCommandArgs struct {
	Command        string `json:"command"`
	Shell          bool   `json:"shell,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty"`
}

func runCommand(ctx context.Context, env *Env, call Call, a *runCommandArgs) (string, error) {
	if strings.TrimSpace(a.Command) == "" {
		return "", errors.New("run_command: command is required, e.g. \"go test ./...\"")
	}
	argv := []string{"sh", "-c", a.Command}
	classify := []string{a.Command}
	if !a.Shell {
		words, err := splitWords(a.Command)
		if err != nil {
			return "", err
		}
		argv, classify = words, words
	}
	if a.Cwd == "" {
		a.Cwd = "."
	}
	dir, err := confine(env.Workspace.Folders(), a.Cwd)
	if err != nil {
		return "", err
	}
	// A refused folder (one holding the home directory) is out of reach of
	// the command as of the file tools: never readable under confinement.
	folders, err := usableFolders(env.Workspace.Folders())
	if err != nil {
		return "", err
	}
	timeout := commandTimeout
	if a.TimeoutSeconds > 0 {
		timeout = min(time.Duration(a.TimeoutSeconds)*time.Second, commandMaxTimeout)
	}
	root := folderOf(folders, dir.Real)
	d := guardGit(ctx, decideCommand(env, root, classify, a.Shell), classify, a.Shell, dir.Real, folders, commandEnv(env.HideEnv))
	d = guardLinks(d, classify, a.Shell, dir.Real, folders)
	runEnv := commandEnv(env.HideEnv)
	var confined *confinedCommand
	// A saved rule's command runs as one approved on a card; only the
	// classifier's allow runs confined.
	if d.Action == trust.Allow && d.Rule == nil {
		c, err := confineCommand(argv, folders, runEnv, env.SandboxRead)
		if err != nil {
			d = cannotConfine(err)
		} else {
			confined = c
		}
	}
	// Shown exactly (never redacted), invisible characters escaped.
	detail := trust.VisibleText(a.Command) + "\n\nin " + trust.Visible(dir.Path) + "\n(" + trust.VisibleText(d.Reason) + ")"
	rule, rerr := trust.CommandRule(classify, a.Shell)
	offer := offeredRule(env, rule, rerr)
	dr, derr := trust.DenyCommandRule(classify, a.Shell)
	deny := offeredDeny(env, dr, derr)
	_, err = call.Gate(ctx, d, wire.Approval{
		Kind: wire.ApprovalCommand, Tool: "run_command", Title: "Run command?", Detail: detail,
		Command: argv, Cwd: dir.Path, Rule: ruleID(offer), Options: ruleOptions(offer, deny),
	}, Keep{Root: root, Allow: offer, Deny: deny})
	if err != nil {
		return "", err
	}
	var res procResult
	if env.Checkpoint != nil {
		done := env.Checkpoint.Command(folders)
		defer done()
	}
	if confined != nil {
		res, err = confined.run(ctx, dir.Real, timeout, env.MaxBytes)
	} else {
		res, err = runProcess(ctx, argv, dir.Real, runEnv, timeout, env.MaxBytes)
	}
	if err != nil {
		return "", fmt.Errorf("run_command: start %s: %w", trust.ShellQuote(argv[:1]), err)
	}
	out := res.Output
	if res.Cut > 0 {
		out += fmt.Sprintf("\n[... %d more bytes of output cut]", res.Cut)
	}
	switch {
	case res.TimedOut:
		return "", fmt.Errorf("command timed out after %s; its process group was killed. Output so far:\n%s", timeout, out)
	case res.Cancelled:
		return "", context.Canceled
	}
	if confined != nil && res.ExitCode != 0 {
		out = strings.TrimRight(out, "\n") + "\n" + confinedNote
	}
	return fmt.Sprintf("%s\n[exit code %d]", strings.TrimRight(out, "\n"), res.ExitCode), nil
}

// splitWords splits a command line into words like a POSIX shell would,
// honoring quotes and backslashes, and refuses shell syntax it would need a
// shell for, so a command never silently means something else without one.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("run_command: unterminated ' quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\", s[i+1]) >= 0 {
					i++
				} else if s[i] == '$' || s[i] == '`' {
					return nil, fmt.Errorf("run_command: %q uses shell expansion inside quotes: set shell to true to run it with sh -c", s)
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("run_command: unterminated \" quote in %q", s)
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		case strings.IndexByte("|&;<>()$`*?~\n", c) >= 0:
			return nil, fmt.Errorf("run_command: %q uses shell syntax (%q): set shell to true to run it with sh -c", s, string(c))
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("run_command: command is empty")
	}
	return words, nil
}

// commandEnv is agentls's environment without the model API key variables:
// a command the model runs (say a prompt-injected `env`) must not hand the
// key to the model's context and from there to whoever wrote the injection.
// PATH keeps only its absolute entries (see absolutePath).
func commandEnv(hide []string) []string {
	hidden := map[string]bool{"ANTHROPIC_API_KEY": true, "OPENAI_API_KEY": true}
	for _, h := range hide {
		hidden[h] = true
	}
	var out []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case hidden[k]:
		case k == "PATH":
			out = append(out, "PATH="+absolutePath(v))
		default:
			out = append(out, kv)
		}
	}
	return out
}

// absolutePath drops the relative and empty entries of a PATH value: with
// "" or "." in it, `sh -c ls` in a repository runs the ./ls it ships.
func absolutePath(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
