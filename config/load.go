package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentls/agentls/wire"
)

// Load reads the user file (missing is fine; "" skips it) and
// <root>/.agentls/config.toml of each workspace root. It never fails:
// problems are in Diagnostics, sorted by file and line, and every value a
// file got wrong keeps its default. User-tier servers belong to the first
// workspace root (the process's working directory when there is none): it is
// their ${workspaceFolder}, never their cwd.
func Load(userPath string, workspaceRoots []string) *Config {
	l := &loader{cfg: Defaults(), seen: map[string]Server{}}
	roots := cleanRoots(workspaceRoots)
	userRoot := ""
	if len(roots) > 0 {
		userRoot = roots[0]
	} else if wd, err := os.Getwd(); err == nil {
		userRoot = wd
	}
	if userPath != "" {
		if f, read := l.read(userPath, User, userRoot); read {
			l.cfg.UserFile = userPath
			if f != nil {
				l.userTier(f)
			}
		}
	}
	for _, root := range roots {
		if f, read := l.read(WorkspacePath(root), Workspace, root); read {
			l.cfg.WorkspaceFiles = append(l.cfg.WorkspaceFiles, WorkspacePath(root))
			if f != nil {
				l.workspaceTier(f)
			}
		}
	}
	l.finish()
	return l.cfg
}

func cleanRoots(roots []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		if abs, err := filepath.Abs(r); err == nil {
			r = abs
		}
		r = filepath.Clean(r)
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// tomlFile is one parsed config file and where its keys were written.
type tomlFile struct {
	path   string
	origin Origin
	root   string // the workspace root this file's servers belong to
	data   map[string]any
	lines  keyLines
}

func (f *tomlFile) source(path []string) Source {
	return Source{File: f.path, Line: f.lines.line(path)}
}

type loader struct {
	cfg     *Config
	seen    map[string]Server // server name → the entry that took it
	modeSet bool              // [agent] mode was set (autopilot = true then does not choose it)
}

func (l *loader) diag(f *tomlFile, sev Severity, path []string, msg string) Diagnostic {
	d := Diagnostic{Source: f.source(path), Key: displayKey(path), Message: msg, Severity: sev}
	l.cfg.Diagnostics = append(l.cfg.Diagnostics, d)
	return d
}

// read loads one file. read is false when the file does not exist or could
// not be read; f is nil when it was read but is not valid TOML (the whole
// file is then ignored: a half-parsed file could mean anything).
func (l *loader) read(path string, origin Origin, root string) (f *tomlFile, read bool) {
	var b []byte
	err := outsideRoot(path, origin, root)
	if err == nil {
		b, err = readConfigFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		d := Diagnostic{
			Source:   Source{File: path},
			Message:  fmt.Sprintf("cannot read config file: %v (nothing from it was used)", err),
			Severity: SeverityError,
		}
		l.cfg.Diagnostics = append(l.cfg.Diagnostics, d)
		l.cfg.Unusable = append(l.cfg.Unusable, d)
		return nil, false
	}
	data := map[string]any{}
	if _, err := toml.Decode(string(b), &data); err != nil {
		d := Diagnostic{
			Source:   Source{File: path},
			Message:  fmt.Sprintf("invalid TOML: %v (nothing from this file was used)", err),
			Severity: SeverityError,
		}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			d.Source.Line, d.Source.Col = errorLineCol(b, pe.Position)
			d.Message = fmt.Sprintf("invalid TOML: %s (nothing from this file was used)", pe.Message)
		}
		l.cfg.Diagnostics = append(l.cfg.Diagnostics, d)
		l.cfg.Unusable = append(l.cfg.Unusable, d)
		return nil, true
	}
	return &tomlFile{path: path, origin: origin, root: root, data: data, lines: locateKeys(b)}, true
}

// outsideRoot refuses a workspace config whose real location is outside its
// workspace root. Stops a repo from linking .agentls/config.toml (or
// .agentls) to /proc/self/environ, whose bytes would surface in a parse
// error, or to a /proc file whose read blocks forever.
func outsideRoot(path string, origin Origin, root string) error {
	if origin != Workspace {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil // missing: readConfigFile says so
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("cannot resolve the workspace root: %v", err)
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("it is a link to %s, outside the workspace %s; a workspace config must be a file inside the workspace", real, realRoot)
	}
	return nil
}

// maxConfigBytes caps a config file; real ones are a few KB.
const maxConfigBytes = 1 << 20

// readConfigFile reads a regular file of at most maxConfigBytes. A repo can
// commit .agentls/config.toml as a symlink to /dev/zero or a FIFO: the file
// is opened without blocking and checked as opened (not stat'ed first, then
// opened: a FIFO swapped in between would hang agentls).
func readConfigFile(path string) ([]byte, error) {
	fh, err := openConfigFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return readOpened(fh)
}

// readOpened reads fh if it is a regular file of at most maxConfigBytes.
// The checks are on the open file itself, so they hold for what is read.
func readOpened(fh *os.File) ([]byte, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("%d bytes is too large for a config file (at most %d)", st.Size(), maxConfigBytes)
	}
	// Capped anyway: a file may grow between the fstat and the read.
	b, err := io.ReadAll(io.LimitReader(fh, maxConfigBytes+1))
	if err == nil && len(b) > maxConfigBytes {
		err = fmt.Errorf("too large for a config file (at most %d bytes)", maxConfigBytes)
	}
	return b, err
}

// errorLineCol places a syntax error by its byte offset: the library counts
// an error found on a line's final newline as being on the next line.
func errorLineCol(src []byte, p toml.Position) (line, col int) {
	if p.Start <= 0 || p.Start > len(src) {
		return p.Line, p.Col
	}
	before := src[:p.Start]
	line = bytes.Count(before, []byte("\n")) + 1
	col = p.Start - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func (l *loader) finish() {
	c := l.cfg
	// autopilot = true is the older spelling of mode = "autopilot".
	if c.Agent.Autopilot && !l.modeSet {
		c.Agent.Mode = wire.ModeAutopilot
	}
	c.Agent.Autopilot = c.Agent.Mode == wire.ModeAutopilot
	c.Profiles = profilesWithDefaults(c.Profiles)
	for i := range c.MCP.Servers {
		s := &c.MCP.Servers[i]
		if !s.Remote() {
			s.SandboxRead = c.Sandbox.Read
		}
		if c.MCP.ConnectTimeout > 0 && !s.connectTimeoutSet {
			s.ConnectTimeout = c.MCP.ConnectTimeout
		}
		if s.Remote() && !s.clientMetadataSet {
			s.OAuthClientMetadataURL = c.MCP.OAuthClientMetadataURL
		}
	}
	sort.SliceStable(c.MCP.Servers, func(i, j int) bool { return c.MCP.Servers[i].Name < c.MCP.Servers[j].Name })
	sort.SliceStable(c.MCP.Policy, func(i, j int) bool {
		a, b := c.MCP.Policy[i], c.MCP.Policy[j]
		if a.Origin != b.Origin {
			return a.Origin == User
		}
		if a.Source.File != b.Source.File {
			return a.Source.File < b.Source.File
		}
		return a.Pattern < b.Pattern
	})
	sort.SliceStable(c.Diagnostics, func(i, j int) bool {
		a, b := c.Diagnostics[i], c.Diagnostics[j]
		switch {
		case a.Source.File != b.Source.File:
			return a.Source.File < b.Source.File
		case a.Source.Line != b.Source.Line:
			return a.Source.Line < b.Source.Line
		case a.Source.Col != b.Source.Col:
			return a.Source.Col < b.Source.Col
		case a.Key != b.Key:
			return a.Key < b.Key
		}
		return a.Message < b.Message
	})
}

func sortedKeys(t map[string]any) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func unknownKey(expected []string) string {
	return "unknown key, ignored; expected one of: " + keyList(expected)
}
