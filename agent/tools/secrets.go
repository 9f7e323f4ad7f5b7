package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// A workspace root that holds the user's whole home (or the whole disk)
// would put ~/.ssh and ~/.aws within reach of read_file, which asks
// nothing, and of every command autopilot runs without a card. Editors
// started from a home directory with no folder open do exactly that, and
// `agentls run` in /home did the same with a parent of it, so the file
// tools refuse such a root and say what to do.

// RefusedRoot says why folder cannot be a workspace root for the file tools
// (it is the root of the file system, or it is or holds the home
// directory), or "". agentls's state and config folders inside a
// workspace are not refused: the read tools ask before reading them.
func RefusedRoot(folder string) string {
	if folder == "" {
		return ""
	}
	real := realClean(folder)
	if filepath.Dir(real) == real { // "/" (or a volume root)
		return fmt.Sprintf("%s is the root of the file system", folder)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		switch h := realClean(home); {
		case real == h:
			return fmt.Sprintf("%s is your home directory", folder)
		case within(real, h):
			return fmt.Sprintf("%s holds your home directory (%s)", folder, home)
		}
	}
	return ""
}

// realClean is p with its links resolved when it exists, cleaned.
func realClean(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}

// RefusedRootMessage is the whole explanation for a refused root: why, and
// what to do instead.
func RefusedRootMessage(reason string) string {
	return reason + ": agentls's file tools (read_file, list_directory, find_files, search_text, write_file, edit_file, run_command) " +
		"do not work on such a workspace, since it holds ~/.ssh, ~/.aws and every other secret of the user. " +
		"Please open a project folder (in the editor, or run agentls from it) and ask again"
}

// usableFolders drops refused roots; the error names them when none is left.
func usableFolders(folders []string) ([]string, error) {
	var ok []string
	var refused []string
	for _, f := range folders {
		if r := RefusedRoot(f); r != "" {
			refused = append(refused, r)
			continue
		}
		ok = append(ok, f)
	}
	if len(ok) == 0 && len(refused) > 0 {
		return nil, fmt.Errorf("%s", RefusedRootMessage(strings.Join(refused, "; ")))
	}
	return ok, nil
}

// Secrets are the files and folders a read tool asks about before it
// reads them, wherever the workspace is: the key stores of the home
// directory and agentls's own config, state (sessions, transcripts) and
// trust store. Names that hold secrets anywhere are in secretName.
type Secrets struct {
	dirs  []string // real paths: everything at or below asks
	files []string // real paths
}

// NewSecrets are the secret places of a user whose agentls keeps its
// state in stateDir.
func NewSecrets(stateDir string) Secrets {
	var s Secrets
	add := func(list *[]string, p string) {
		if p == "" {
			return
		}
		p = filepath.Clean(p)
		*list = append(*list, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			*list = append(*list, r)
		}
	}
	for _, d := range config.SecretDirs() {
		add(&s.dirs, d)
	}
	add(&s.dirs, stateDir)
	if u := config.UserPath(); u != "" {
		add(&s.files, u)
	}
	add(&s.files, trust.DefaultStorePath())
	return s
}

// secretName reports whether a path component names what holds secrets
// wherever it is (config.SecretName).
func secretName(base string) bool { return config.SecretName(base) }

// reason says why reading p (a real or editor path) must ask, or "".
func (s Secrets) reason(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	for _, f := range s.files {
		if p == f {
			return "it is agentls's own config or trust store"
		}
	}
	for _, d := range s.dirs {
		if within(d, p) {
			return fmt.Sprintf("it is in %s, which holds secrets", d)
		}
	}
	for _, part := range strings.Split(p, string(filepath.Separator)) {
		if secretName(part) {
			return fmt.Sprintf("%s usually holds secrets", part)
		}
	}
	return ""
}

// targetReason checks both names of a target: the path as given and where
// its links lead.
func (s Secrets) targetReason(t target) string {
	if r := s.reason(t.Real); r != "" {
		return r
	}
	return s.reason(t.Path)
}

// readTarget is how every read tool reaches path: confined to the
// workspace folders, then asked about when it holds secrets.
func readTarget(ctx context.Context, env *Env, call Call, tool, verb, path string) (target, error) {
	t, err := confine(env.Workspace.Folders(), path)
	if err != nil {
		return target{}, err
	}
	return t, gateSecretRead(ctx, env, call, tool, verb, t)
}

// gateSecretRead asks before a read tool reads t when t holds secrets; nil
// when it may go on.
func gateSecretRead(ctx context.Context, env *Env, call Call, tool, verb string, t target) error {
	why := env.Secrets.targetReason(t)
	if why == "" {
		return nil
	}
	shown := trust.Visible(t.Path)
	detail := shown
	if t.Real != t.Path {
		detail += "\n(a link to " + trust.Visible(t.Real) + ")"
	}
	detail += "\n\nasks before reading: " + why + "; what is read goes to the model"
	return gate(ctx, call, trust.Decision{Action: trust.Ask, Reason: why}, wire.Approval{
		Kind: wire.ApprovalRead, Tool: tool, Title: fmt.Sprintf("%s %s?", verb, shown), Detail: detail,
		Options: []wire.ApprovalOption{AllowOnce, RejectOnce},
	})
}

// readMayAsk says whether a read tool call may ask (its path holds
// secrets), so it does not run beside other calls and starts pending.
func readMayAsk(env *Env, in []byte) bool {
	if env.Workspace == nil {
		return false
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(in, &a) != nil {
		return false
	}
	if a.Path == "" {
		a.Path = "."
	}
	t, err := confine(env.Workspace.Folders(), a.Path)
	if err != nil {
		return false
	}
	return env.Secrets.targetReason(t) != ""
}
