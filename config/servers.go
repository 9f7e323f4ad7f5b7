package config

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var serverKeys = []string{"command", "args", "env", "cwd", "url", "headers", "oauth_client_id", "oauth_client_secret_env", "oauth_client_metadata_url", "connect_timeout", "list_timeout", "call_timeout", "disabled", "sandbox", "network"}

// servers reads [mcp.servers]. A broken entry stays in the list with Err set
// (shown as failed, never started); the other entries load regardless.
func (l *loader) servers(f *tomlFile, v any) {
	path := []string{"mcp", "servers"}
	t, err := asTable(v, "a table of servers, written [mcp.servers.NAME]")
	if err != nil {
		l.diag(f, SeverityError, path, err.Error()+"; no server from this file was loaded")
		return
	}
	for _, name := range sortedKeys(t) {
		s := l.server(f, name, t[name])
		if prev, ok := l.seen[name]; ok && f.origin == Workspace {
			why := "another workspace folder already declares it"
			if prev.Origin == User {
				// Stops a repo from replacing a server the user configured with its own command.
				why = "your user config declares it, and a repository must not shadow a server you configured"
			}
			l.diag(f, SeverityWarning, []string{"mcp", "servers", name},
				fmt.Sprintf("server %q ignored: %s (%s)", name, why, prev.Source))
			continue
		}
		if f.origin == Workspace {
			if other, ok := l.sharedNamespace(name); ok {
				// Stops a repo server "a" with a tool "b__c" from taking the name
				// "a__b__c" (and its allow rule) of the user's server "a__b".
				l.diag(f, SeverityWarning, []string{"mcp", "servers", name},
					fmt.Sprintf("server %q ignored: its tool names (%s__TOOL) would share a namespace with the server %q (%s), so a tool of one could take the name, and the policy, of a tool of the other; rename it",
						name, name, other.Name, other.Source))
				continue
			}
		}
		l.seen[name] = s
		l.cfg.MCP.Servers = append(l.cfg.MCP.Servers, s)
	}
}

// sharedNamespace finds an already declared server whose "NAME__" tool
// prefix is a prefix of name's, or the other way round ("a" and "a__b",
// "github" and "github_"): their namespaced tool names can coincide.
func (l *loader) sharedNamespace(name string) (Server, bool) {
	mine := name + "__"
	var found []Server
	for other, s := range l.seen {
		theirs := other + "__"
		if strings.HasPrefix(mine, theirs) || strings.HasPrefix(theirs, mine) {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return Server{}, false
	}
	// Name the same server on every run (map order is random).
	sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	return found[0], true
}

// server reads one [mcp.servers.NAME] entry. Every problem is a diagnostic;
// any problem at all sets Err, so the entry is listed as failed and never
// started: a misspelt key (say "disabeld") must not run something the user
// meant to change.
func (l *loader) server(f *tomlFile, name string, v any) (s Server) {
	path := []string{"mcp", "servers", name}
	s = Server{
		Name:           name,
		Origin:         f.origin,
		Source:         f.source(path),
		WorkspaceRoot:  f.root,
		Cwd:            f.serverDir(),
		ConnectTimeout: DefaultConnectTimeout,
		ListTimeout:    DefaultListTimeout,
		CallTimeout:    DefaultCallTimeout,
	}
	var errs []string
	fail := func(p []string, err error) {
		d := l.diag(f, SeverityError, p, err.Error())
		errs = append(errs, d.String())
	}
	defer func() {
		if len(errs) > 0 {
			s.Err = "invalid config, not started: " + strings.Join(errs, "; ")
		}
	}()

	if name == "" {
		fail(path, errors.New(`a server needs a name: [mcp.servers.NAME]`))
	}
	if !printableName(name) {
		// A terminal escape in a name printed as is could overwrite a launch card on screen.
		fail(path, fmt.Errorf("server name %q has control or invisible characters: expected letters, digits, '-' and '_'", name))
	}
	t, err := asTable(v, fmt.Sprintf(`a table [mcp.servers.%s] with command = "program"`, displayKey([]string{name})))
	if err != nil {
		fail(path, err)
		return s
	}
	_, hasCommand := t["command"]
	_, hasURL := t["url"]
	switch {
	case hasCommand && hasURL:
		fail(path, errors.New(`both command and url are set: a server is either a program agentls starts (command = "program") or a remote server it connects to (url = "https://..."), not both; remove one`))
	case !hasCommand && !hasURL:
		fail(path, errors.New(`missing command: expected command = "program" (it runs without a shell; arguments go in args = [...]), or url = "https://..." for a remote server`))
	case hasURL:
		for _, k := range []string{"args", "env", "cwd", "sandbox", "network"} {
			if _, ok := t[k]; ok {
				fail(append(append([]string{}, path...), k), fmt.Errorf("%s is for a server agentls starts (command = ...); a remote server (url = ...) takes headers = { ... } instead", k))
			}
		}
	default:
		for _, k := range []string{"headers", "oauth_client_id", "oauth_client_secret_env", "oauth_client_metadata_url"} {
			if _, ok := t[k]; ok {
				fail(append(append([]string{}, path...), k), fmt.Errorf(`%s is for a remote server (url = "https://..."); a server agentls starts gets env = { ... } instead`, k))
			}
		}
	}
	for _, k := range sortedKeys(t) {
		v, p := t[k], append(append([]string{}, path...), k)
		var err error
		switch k {
		case "command":
			if s.Command, err = asString(v); err == nil && strings.TrimSpace(s.Command) == "" {
				err = errors.New(`empty command: expected the program to run, like "npx" or "/usr/local/bin/server"`)
			}
		case "args":
			if s.Args, err = asStrings(v); err == nil {
				for i, a := range s.Args {
					s.Args[i] = strings.ReplaceAll(a, workspaceFolder, f.root)
				}
			}
		case "env":
			s.Env = l.env(f, p, v, fail)
		case "cwd":
			var dir string
			if dir, err = asString(v); err == nil && dir != "" {
				dir = strings.ReplaceAll(dir, workspaceFolder, f.root)
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(f.serverDir(), dir)
				}
				s.Cwd = filepath.Clean(dir)
			}
		case "url":
			if s.URL, err = asString(v); err == nil {
				err = CheckServerURL(s.URL)
			}
		case "headers":
			s.Headers = l.headers(f, p, v, fail)
		case "oauth_client_id":
			s.OAuthClientID, err = asString(v)
		case "oauth_client_secret_env":
			if s.OAuthClientSecretEnv, err = asString(v); err == nil && !isEnvName(s.OAuthClientSecretEnv) {
				err = fmt.Errorf("oauth_client_secret_env %q: expected the name of an environment variable (the secret itself never goes in a config file)", s.OAuthClientSecretEnv)
			}
		case "oauth_client_metadata_url":
			if f.origin == Workspace {
				l.diag(f, SeverityWarning, p, ignoredInWorkspace(p))
				continue
			}
			s.OAuthClientMetadataURL, err = clientMetadataURL(v)
			s.clientMetadataSet = err == nil
		case "connect_timeout":
			s.ConnectTimeout, err = asDuration(v)
			s.connectTimeoutSet = err == nil
		case "list_timeout":
			s.ListTimeout, err = asDuration(v)
		case "call_timeout":
			s.CallTimeout, err = asDuration(v)
		case "disabled":
			s.Disabled, err = asBool(v)
		case "sandbox":
			if s.Sandbox, err = asString(v); err == nil && !slices.Contains(SandboxModes, s.Sandbox) {
				err = fmt.Errorf(`unknown sandbox %q: expected "none", "workspace-read" or "workspace-write"`, s.Sandbox)
				s.Sandbox = ""
			}
		case "network":
			s.Network, err = asBool(v)
		default:
			err = errors.New("unknown key; expected one of: " + keyList(serverKeys))
		}
		if err != nil {
			fail(p, err)
		}
	}
	if _, set := t["network"]; set && s.SandboxMode() == SandboxNone {
		// A user who wrote network = false expects the network closed; an
		// unconfined server cannot be held to that.
		fail(append(append([]string{}, path...), "network"), errors.New(`network applies only to a confined server: set sandbox = "workspace-read" or "workspace-write" too, or drop network`))
	}
	if s.URL != "" {
		s.Cwd = ""
	}
	if err := commandLine(s.Command); err != nil {
		fail(append(append([]string{}, path...), "command"), err)
	}
	return s
}

// printableName is false for invalid UTF-8, control characters and
// invisible formatting characters (zero-width, bidi overrides).
func printableName(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// commandLine catches a whole command line written into command (a habit
// from shell configs): there is no shell to split it, so it would never run.
func commandLine(cmd string) error {
	fields := strings.Fields(cmd)
	if len(fields) < 2 {
		return nil
	}
	if _, err := exec.LookPath(cmd); err == nil {
		return nil // a program whose path really has a space in it
	}
	args := make([]string, len(fields)-1)
	for i, f := range fields[1:] {
		args[i] = strconv.Quote(f)
	}
	return fmt.Errorf("command %q is a command line, but it runs without a shell: write command = %q and args = [%s]",
		cmd, fields[0], strings.Join(args, ", "))
}

// env reads a server's env table. Values keep their ${VAR} references (they
// expand at spawn time) but must already be well-formed.
func (l *loader) env(f *tomlFile, path []string, v any, fail func([]string, error)) map[string]string {
	t, err := asTable(v, `a table of strings like env = { NAME = "value" }`)
	if err != nil {
		fail(path, err)
		return nil
	}
	env := make(map[string]string, len(t))
	for _, k := range sortedKeys(t) {
		p := append(append([]string{}, path...), k)
		if k == "" || strings.ContainsAny(k, "=\x00") {
			fail(p, fmt.Errorf("invalid environment variable name %q: it may not be empty or contain '='", k))
			continue
		}
		val, err := asString(t[k])
		if err == nil {
			err = checkExpansion(val)
		}
		if err != nil {
			fail(p, err)
			continue
		}
		env[k] = expandWorkspaceFolder(val, f.root)
	}
	return env
}

// workspaceFolder in a server's args, env or cwd is the workspace root the
// entry belongs to (for the user tier: the first folder agentls serves), so
// a user server that should see the workspace is told so explicitly.
const workspaceFolder = "${workspaceFolder}"

// serverDir is where a server of f runs when its entry sets no cwd, and what
// a relative cwd resolves against. A user server runs in the user config's
// own folder, never in the workspace: `python3 -m mod` imports mod.py from
// its cwd and `npx x` runs the cwd's node_modules/.bin/x, so a cwd inside
// the repository would run code the repository ships, with no card.
func (f *tomlFile) serverDir() string {
	if f.origin != User {
		return f.root
	}
	dir, err := filepath.Abs(filepath.Dir(f.path))
	if err != nil {
		return filepath.Dir(f.path)
	}
	return dir
}

// expandWorkspaceFolder replaces ${workspaceFolder} in an env value, which
// keeps its other ${VAR} references until spawn time: a "$" in root is
// written "$$" so it stays literal then, and "$$" in the value stays as is.
func expandWorkspaceFolder(val, root string) string {
	if !strings.Contains(val, workspaceFolder) {
		return val
	}
	var b strings.Builder
	for i := 0; i < len(val); i++ {
		switch {
		case strings.HasPrefix(val[i:], "$$"):
			b.WriteString("$$")
			i++
		case strings.HasPrefix(val[i:], workspaceFolder):
			b.WriteString(strings.ReplaceAll(root, "$", "$$"))
			i += len(workspaceFolder) - 1
		default:
			b.WriteByte(val[i])
		}
	}
	return b.String()
}

// CheckServerURL accepts an absolute http or https URL with a host and no
// credentials in it (userinfo would be sent to every redirect target and
// shown on every card; a token goes in headers, expanded from the
// environment).
func CheckServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q is not a URL: %v", raw, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf(`url %q: expected an http or https URL like "https://example.com/mcp"`, raw)
	}
	if u.Host == "" {
		return fmt.Errorf("url %q has no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf(`url %q carries credentials: put them in headers = { Authorization = "Bearer ${TOKEN}" } instead`, u.Redacted())
	}
	if u.Fragment != "" {
		return fmt.Errorf("url %q has a fragment (#...), which is never sent to the server", raw)
	}
	if strings.Contains(raw, "${") {
		return fmt.Errorf("url %q: the url is not expanded from the environment (only header values are)", raw)
	}
	return nil
}

// headers reads a remote server's headers table. Names must be HTTP header
// names agentls does not set itself; values keep their ${VAR} references
// (expanded at connect time) but must already be well-formed.
func (l *loader) headers(f *tomlFile, path []string, v any, fail func([]string, error)) map[string]string {
	t, err := asTable(v, `a table of strings like headers = { Authorization = "Bearer ${TOKEN}" }`)
	if err != nil {
		fail(path, err)
		return nil
	}
	out := make(map[string]string, len(t))
	seen := map[string]string{}
	for _, k := range sortedKeys(t) {
		p := append(append([]string{}, path...), k)
		if err := checkHeader(k, seen); err != nil {
			fail(p, err)
			continue
		}
		val, err := asString(t[k])
		if err == nil {
			err = checkExpansion(val)
		}
		if err == nil && strings.ContainsAny(val, "\r\n\x00") {
			err = errors.New("a header value may not contain a line break or NUL")
		}
		if err != nil {
			fail(p, err)
			continue
		}
		out[k] = val
	}
	return out
}

// isHeaderName is true for an RFC 9110 token.
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// checkHeader accepts a header name that is well formed, not yet in seen
// (by canonical name; it is added) and not one agentls's MCP client sets.
func checkHeader(k string, seen map[string]string) error {
	if !isHeaderName(k) {
		return fmt.Errorf("invalid header name %q: expected letters, digits and -", k)
	}
	canon := http.CanonicalHeaderKey(k)
	if prev, dup := seen[canon]; dup {
		return fmt.Errorf("header %q is set twice (also as %q)", k, prev)
	}
	seen[canon] = k
	switch canon {
	case "Host", "Content-Length", "Content-Type", "Accept", "Connection", "Transfer-Encoding", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id":
		return fmt.Errorf("header %q is set by agentls's MCP client and may not be configured", k)
	}
	return nil
}
