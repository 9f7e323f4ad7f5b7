package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/trust"
)

// probeTimeout bounds the model endpoint check: doctor must answer quickly
// even when the endpoint is a black hole.
const probeTimeout = 3 * time.Second

// cmdDoctor checks the config, the model endpoint and every MCP server, and
// says what to do about each problem. Exit 0 when everything is usable.
func cmdDoctor(args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	configPath, workspace, code := parseConfigWorkspace(fs, args, "agentls doctor [--config FILE] [--workspace DIR]")
	if code >= 0 {
		return code
	}

	d := &doctor{out: os.Stdout}
	cfg := config.Load(configPath, []string{workspace})
	d.config(cfg, configPath, workspace)
	d.model(cfg, configPath)
	d.servers(cfg, workspace)
	d.confinement(cfg)
	if d.problems > 0 {
		fmt.Fprintf(d.out, "\n%d problem(s) found; see above.\n", d.problems)
		return 1
	}
	fmt.Fprintln(d.out, "\nEverything is usable.")
	return 0
}

// doctor prints a report and counts what stops agentls from working.
type doctor struct {
	out      io.Writer
	problems int
}

func (d *doctor) printf(format string, args ...any) { fmt.Fprintf(d.out, format, args...) }

func (d *doctor) problem(format string, args ...any) {
	d.problems++
	d.printf("  PROBLEM  "+format+"\n", args...)
}

func (d *doctor) config(cfg *config.Config, userPath, workspace string) {
	d.printf("Config\n")
	if cfg.UserFile != "" {
		d.printf("  user config       %s\n", cfg.UserFile)
	} else {
		d.printf("  user config       %s (not found: defaults apply)\n", userPath)
	}
	if len(cfg.WorkspaceFiles) > 0 {
		for _, f := range cfg.WorkspaceFiles {
			d.printf("  workspace config  %s (untrusted: only MCP servers and ask/deny policy are read)\n", oneLine(f))
		}
	} else {
		d.printf("  workspace config  none (%s)\n", oneLine(config.WorkspacePath(workspace)))
	}
	if len(cfg.Diagnostics) == 0 {
		d.printf("  no problems in the config\n")
	}
	for _, diag := range cfg.Diagnostics {
		if diag.Severity == config.SeverityWarning {
			d.printf("  warning  %s\n", oneLine(diag.String()))
			continue
		}
		d.problem("%s", oneLine(diag.String()))
	}
}

func (d *doctor) model(cfg *config.Config, userPath string) {
	d.printf("\nModel\n")
	r, err := model.Resolve(cfg.Model, os.Getenv)
	if err != nil {
		d.problem("%v", err)
		return
	}
	d.printf("  provider  %s (%s; wire %s)\n  model     %s\n  base URL  %s\n", r.Provider, r.Desc.Title, r.Wire(), r.Name, r.BaseURL)
	w := model.FindWindow(context.Background(), r, cfg.Model.ContextWindow, model.OpenMemory(config.StateDir()), nil)
	window, how := w.Tokens, w.From
	d.printf("  window    %d tokens (%s); compacts past %d\n", window, how, window*3/4)
	if n := r.Desc.MaxToolsFor(cfg.Model.MaxTools); n > 0 {
		d.printf("  tools     at most %d per request; past that or %d tokens of MCP definitions, tool search\n", n, config.ToolBudgetFor(cfg.MCP.ToolBudgetTokens, window))
	} else {
		d.printf("  tools     past %d tokens of MCP definitions per request, tool search\n", config.ToolBudgetFor(cfg.MCP.ToolBudgetTokens, window))
	}
	imgHow := "guessed from the provider and the model's name"
	if cfg.Model.Images != nil {
		imgHow = "[model] images"
	}
	if r.Images {
		d.printf("  images    tool images are shown to the model (%s)\n", imgHow)
	} else {
		d.printf("  images    tool images are only named, not shown (%s; set [model] images = true for a vision model)\n", imgHow)
	}
	if r.Thinking > 0 {
		d.printf("  thinking  extended thinking on, %d tokens a request ([model] thinking), on top of max_tokens\n", r.Thinking)
	}
	if r.Why != "" {
		d.printf("  chosen    %s\n", r.Why)
	}
	switch {
	case r.APIKeyEnv == "":
		d.printf("  API key   none needed\n")
	case r.KeySet:
		d.printf("  API key   $%s is set\n", r.APIKeyEnv)
	default:
		// Resolve only lets a missing key through for a local endpoint.
		d.printf("  warning  $%s is not set: fine if %s needs no key, else export %s=<your key>\n", r.APIKeyEnv, r.BaseURL, r.APIKeyEnv)
	}
	status, err := probe(r.BaseURL)
	if err != nil {
		hint := fmt.Sprintf("start the server there, or set [model] base_url in %s to an endpoint that answers (and check HTTPS_PROXY)", userPath)
		if r.Fallback {
			hint = fmt.Sprintf("nothing is configured, so Ollama was tried: export ANTHROPIC_API_KEY or OPENAI_API_KEY, set [model] in %s, or start Ollama (ollama serve)", userPath)
		}
		d.problem("%s does not answer: %v; %s", r.BaseURL, err, hint)
		return
	}
	d.printf("  endpoint  answers (HTTP %d)\n", status)
}

// probe sends one GET to the endpoint. Any HTTP answer counts: the point is
// that something is listening there, not that this path exists. No key is sent.
func probe(baseURL string) (int, error) {
	if baseURL == "" {
		return 0, errors.New("no base URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL, nil)
	if err != nil {
		return 0, err
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %s", probeTimeout)
		}
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (d *doctor) servers(cfg *config.Config, workspace string) {
	d.printf("\nMCP servers\n")
	if len(cfg.MCP.Servers) == 0 {
		d.printf("  none configured\n")
		return
	}
	core, err := agent.Open(agent.Setup{Config: cfg, Roots: []string{workspace}})
	if err != nil {
		d.problem("cannot open the agent: %v", err)
		return
	}
	defer core.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	core.StartServers(ctx)
	// The registry has its own connect and list timers; this only guards
	// against waiting forever if one of them never fires.
	wait := 5 * time.Second
	for _, s := range cfg.MCP.Servers {
		wait = max(wait, s.ConnectTimeout+s.ListTimeout+5*time.Second)
	}
	wctx, wcancel := context.WithTimeout(ctx, wait)
	core.WaitServers(wctx)
	wcancel()

	configErr := map[string]bool{}
	for _, s := range cfg.MCP.Servers {
		configErr[s.Name] = s.Err != ""
	}
	listed := map[string]bool{}
	for _, s := range core.Servers() {
		listed[s.Name] = true
		d.printf("  %-16s %-9s %s\n", oneLine(s.Name), s.Origin, s.State)
		if cmd := trust.ShellQuote(s.Command); cmd != "" {
			d.printf("      $ %s\n", cmd)
		}
		if s.Sandbox != "" {
			d.printf("      sandbox: %s\n", trust.Visible(s.Sandbox))
		}
		if s.URL != "" {
			d.printf("      %s\n", oneLine(s.URL))
		}
		switch s.State {
		case wire.ServerConnected:
			d.printf("      %d tools, ~%d schema tokens per turn\n", len(s.Tools), s.SchemaTokens)
		case wire.ServerDisabled:
		case wire.ServerNeedsApproval, wire.ServerApprovalStale:
			d.printf("      not started until you approve it: agentls mcp trust %s --workspace %s\n", oneLine(s.Name), oneLine(workspace))
		case wire.ServerFailed:
			if configErr[s.Name] {
				// Already counted with the config's diagnostics above.
				d.printf("      not started: its config entry is invalid (see above)\n")
				continue
			}
			d.problem("%s: %s", oneLine(s.Name), oneLine(s.Error))
			if tail := strings.TrimSpace(s.StderrTail); tail != "" {
				d.printf("      stderr: %s\n", strings.Join(oneLines(strings.Split(lastLines(tail, 5), "\n")), "\n              "))
			}
		default:
			d.problem("%s: still %s after %s", oneLine(s.Name), s.State, wait)
		}
	}
	for _, s := range cfg.MCP.Servers {
		if !listed[s.Name] {
			d.problem("%s: configured (%s) but missing from the server registry", s.Name, s.Source)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// confinement says what the kernel confines on this machine and what it
// does not. Missing confinement is not a problem: autopilot then asks for
// every command, it never runs one unconfined without a card.
func (d *doctor) confinement(cfg *config.Config) {
	s := sandbox.Supported()
	d.printf("\nConfinement\n")
	d.printf("  kernel            %s\n", s)
	if s.Filesystem {
		if l, err := sandbox.Launcher(); err != nil {
			d.printf("  launcher          %v\n", err)
		} else {
			d.printf("  launcher          %s\n", l)
		}
	}
	auto := "off (every command asks)"
	if cfg.Agent.Autopilot {
		auto = "on"
	}
	d.printf("  autopilot         %s\n", auto)
	if s.Filesystem {
		d.printf("  run_command       confined when autopilot runs it without a card: reads the workspace and system files only, writes nothing, no network (started by a long-lived launcher per workspace, one Landlock domain and temporary folder per command); a command you approve runs unconfined\n")
	} else {
		d.printf("  run_command       NOT confined here, so autopilot asks for every command (none runs without a card)\n")
	}
	switch {
	case s.Filesystem:
		net := "no network"
		if !s.TCP && !s.SocketFilter {
			net = "network NOT limited on this kernel (" + s.String() + ")"
		}
		d.printf("  MCP servers       a repository's server runs confined by default (sandbox = \"workspace-read\": reads the system and the workspace, writes only its own state folder, %s) unless its entry loosens it, which its card shows; so does a stdio server an ACP editor passes; your own run unconfined unless their entry sets sandbox; each server's line above says what it may touch\n", net)
	default:
		d.printf("  MCP servers       NOT confined here: a repository's server would run with your privileges once approved (its card says so); one of yours that sets sandbox does not start\n")
	}
}
