package config

import (
	"cmp"
	"fmt"
	"strings"
)

// EditorServer is one MCP server an editor passes for a session: a stdio
// one (ACP's McpServerStdio: command, args, env as the editor lists it, in
// order) or a remote one (McpServerHttp, McpServerSse: URL and headers).
type EditorServer struct {
	Name    string
	Command string
	Args    []string
	// Env is the editor's, already resolved: AddEditorServers makes each
	// value literal (Literal), as it does header values.
	Env [][2]string
	// URL is a remote server's endpoint; "" for a stdio server.
	URL string
	// Headers are sent to URL's origin, values literal (never expanded
	// from agentls's environment: the editor already resolved them).
	Headers [][2]string
}

// AddEditorServers adds the servers an editor passed for a session rooted
// at root to cfg as the Editor tier: untrusted, launch-gated like workspace
// servers, never replacing a configured one. A server it refuses is left out
// with a diagnostic saying why; a broken entry is kept with Err set (listed
// as failed, never started), as a broken config entry is.
func AddEditorServers(cfg *Config, root string, servers []EditorServer) []Diagnostic {
	var diags []Diagnostic
	src := Source{File: "the editor's session/new mcpServers"}
	refuse := func(name, why string) {
		diags = append(diags, Diagnostic{Source: src, Key: name, Severity: SeverityWarning,
			Message: fmt.Sprintf("server %q ignored: %s", name, why)})
	}
	for _, e := range servers {
		if prev, ok := findServer(cfg.MCP.Servers, e.Name); ok {
			// Stops a project's editor settings from replacing a server the user configured.
			refuse(e.Name, fmt.Sprintf("a server of that name is already configured (%s)", prev.Source))
			continue
		}
		if other, ok := namespaceClash(cfg.MCP.Servers, e.Name); ok {
			refuse(e.Name, fmt.Sprintf("its tool names (%s__TOOL) would share a namespace with the server %q (%s); rename it", e.Name, other.Name, other.Source))
			continue
		}
		s := Server{Name: e.Name, Origin: Editor, Source: src, WorkspaceRoot: root, Cwd: root,
			Command: e.Command, Args: e.Args, ConnectTimeout: cmp.Or(cfg.MCP.ConnectTimeout, DefaultConnectTimeout),
			ListTimeout: DefaultListTimeout, CallTimeout: DefaultCallTimeout}
		if e.URL != "" {
			s.Cwd, s.URL = "", e.URL
			s.OAuthClientMetadataURL = cfg.MCP.OAuthClientMetadataURL
		} else {
			s.SandboxRead = cfg.Sandbox.Read
		}
		if len(e.Env) > 0 {
			// Literal, as headers are: a project's editor settings must not
			// have agentls fill in ${GITHUB_TOKEN} from its environment.
			s.Env = make(map[string]string, len(e.Env))
			for _, kv := range e.Env {
				s.Env[kv[0]] = Literal(kv[1])
			}
		}
		var errs []string
		switch {
		case e.Name == "" || !printableName(e.Name):
			errs = append(errs, fmt.Sprintf("name %q must be non-empty without control or invisible characters: expected letters, digits, '-' and '_'", e.Name))
		case strings.Contains(e.Name, "__"):
			errs = append(errs, fmt.Sprintf("name %q must not contain \"__\" (it separates a server's name from its tools' names)", e.Name))
		}
		switch {
		case e.URL != "":
			if e.Command != "" {
				errs = append(errs, "both a url and a command: expected one of them")
			}
			if err := CheckServerURL(e.URL); err != nil {
				errs = append(errs, err.Error())
			}
			var herrs []string
			s.Headers, herrs = editorHeaders(e.Headers)
			errs = append(errs, herrs...)
		case strings.TrimSpace(e.Command) == "":
			errs = append(errs, "command is empty: expected a program to run")
		}
		if len(errs) > 0 {
			s.Err = "invalid editor server, not started: " + strings.Join(errs, "; ")
			diags = append(diags, Diagnostic{Source: src, Key: e.Name, Severity: SeverityError, Message: s.Err})
		}
		cfg.MCP.Servers = append(cfg.MCP.Servers, s)
	}
	cfg.Diagnostics = append(cfg.Diagnostics, diags...)
	return diags
}

func findServer(servers []Server, name string) (Server, bool) {
	for _, s := range servers {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

// namespaceClash is sharedNamespace over a merged list.
func namespaceClash(servers []Server, name string) (Server, bool) {
	mine := name + "__"
	for _, s := range servers {
		theirs := s.Name + "__"
		if strings.HasPrefix(mine, theirs) || strings.HasPrefix(theirs, mine) {
			return s, true
		}
	}
	return Server{}, false
}

// editorHeaders checks an editor's headers as a config file's are checked
// and makes each value literal: a '$' in it is written "$$", so that a
// project's editor settings cannot have agentls send one of its
// environment's secrets (${GITHUB_TOKEN}) to the server.
func editorHeaders(headers [][2]string) (map[string]string, []string) {
	out := make(map[string]string, len(headers))
	seen := map[string]string{}
	var errs []string
	for _, h := range headers {
		k, v := h[0], h[1]
		if err := checkHeader(k, seen); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			errs = append(errs, fmt.Sprintf("header %s: a header value may not contain a line break or NUL", k))
			continue
		}
		out[k] = Literal(v)
	}
	return out, errs
}

// Literal writes v so that expanding it (ExpandEnv) gives v back: every
// '$' doubled. The values an editor passes are its own, already resolved.
func Literal(v string) string { return strings.ReplaceAll(v, "$", "$$") }
