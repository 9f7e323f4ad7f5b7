package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
)

// Servers lists every configured server, sorted by name. The command line,
// the error and the stderr tail are redacted: a config passes tokens as
// arguments (--api-key sk-..., TOKEN=ghp_...), a failing server often prints
// its token, and this list reaches editors, the CLI, doctor and issue
// reports. Env values are never listed, only their keys.
func (r *Registry) Servers() []ServerInfo {
	out, cfgs, runs := r.serverRows()
	// What each may touch looks at the filesystem (the program's folder,
	// PATH): done outside the lock.
	for i := range out {
		if !cfgs[i].Remote() {
			out[i].Sandbox = sandboxLine(cfgs[i], runs[i])
		}
	}
	return out
}

// sandboxLine says what the server may touch: as it was started (run, its
// launch card's choice applied), or, not started, as its entry says and
// what else its card offers.
func sandboxLine(cfg config.Server, run *config.Server) string {
	if run == nil {
		sum := trust.Confinement(cfg, "").Summary()
		if trust.OffersChoices(cfg) {
			sum += "; its launch card also offers \"allow with network\" (the same, with network: any) and \"allow unconfined\" (not confined: your full access)"
		}
		return sum
	}
	sum := trust.Confinement(*run, "").Summary()
	if trust.OffersChoices(cfg) {
		sum = "started as chosen on its launch card, " + trust.ChoiceOf(cfg, *run).Label() + ": " + sum
	}
	return sum
}

// serverRows is the list under the lock, with each row's config.
func (r *Registry) serverRows() ([]ServerInfo, []config.Server, []*config.Server) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ServerInfo, 0, len(r.order))
	cfgs := make([]config.Server, 0, len(r.order))
	runs := make([]*config.Server, 0, len(r.order))
	for _, name := range r.order {
		srv := r.servers[name]
		s := srv.cfg
		info := ServerInfo{Name: name, Origin: s.Origin, State: srv.state, Command: trust.RedactArgv(append([]string{s.Command}, s.Args...)),
			EnvKeys: envKeys(s), Cwd: s.Cwd, Error: trust.Redact(srv.err), StderrTail: trust.Redact(srv.tail.Tail(20, 2000)),
			Warnings: append([]string(nil), srv.warnings...), Tools: []Tool{}}
		if s.Remote() {
			info.Command, info.URL, info.HeaderNames = []string{}, s.URL, headerNames(s)
			info.Sandbox = "remote: nothing runs on this machine"
		}
		if srv.conn != nil {
			info.Transport, info.Revision = srv.conn.transport, srv.conn.revision
			info.Prompts = append([]Prompt(nil), srv.prompts...)
		}
		if srv.state == Connected {
			info.Tools = r.toolsLocked(srv)
			for _, t := range info.Tools {
				info.SchemaTokens += t.SchemaTokens
			}
		}
		out = append(out, info)
		cfgs = append(cfgs, s)
		var run *config.Server
		if srv.run != nil {
			c := *srv.run
			run = &c
		}
		runs = append(runs, run)
	}
	return out, cfgs, runs
}

// boundHash is the definition hash "always allow" is bound to. A
// workspace-tier tool's is also bound to its workspace and launch
// fingerprint: a repo's server "fs" copying the tools of the one the user
// always-allowed in another repo (descriptions are public) must not
// inherit the allow. A user-tier tool's is the plain definition hash.
func boundHash(def string, s config.Server) string {
	if s.Origin == config.User {
		return def
	}
	sum := sha256.Sum256([]byte("agentls workspace tool v1\x00" + def + "\x00" + s.WorkspaceRoot + "\x00" + trust.ServerFingerprint(s)))
	return hex.EncodeToString(sum[:])
}

func envKeys(s config.Server) []string {
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func headerNames(s config.Server) []string {
	keys := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Server returns one configured server's config.
func (r *Registry) Server(name string) (config.Server, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	srv, ok := r.servers[name]
	if !ok {
		return config.Server{}, false
	}
	return srv.cfg, true
}

// Tools lists the tools of connected servers, sorted by name. A server that
// failed after it had connected keeps its tools here while it may still be
// restarted on use, so a call can bring it back.
func (r *Registry) Tools() []Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Tool
	for _, name := range r.order {
		srv := r.servers[name]
		if srv.state == Connected || r.restartableLocked(srv) {
			out = append(out, r.toolsLocked(srv)...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (r *Registry) restartableLocked(srv *server) bool {
	return srv.state == Failed && srv.cfg.Err == "" && len(srv.tools) > 0 && srv.restarts < r.opts.MaxRestarts
}

func (r *Registry) toolsLocked(srv *server) []Tool {
	out := make([]Tool, 0, len(srv.tools))
	for _, d := range srv.tools {
		name := r.byKey[ToolKey{Server: srv.cfg.Name, Tool: d.orig}]
		out = append(out, Tool{Name: name, Server: srv.cfg.Name, ServerTool: d.orig, Description: d.description,
			InputSchema: d.schema, Annotations: d.annotations, UI: d.ui, DefinitionHash: boundHash(d.hash, srv.cfg),
			SchemaTokens: EstimateTokens(name, d.description, d.schema)})
	}
	return out
}
