package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
)

// cmdMCPProbe is the hidden `agentls mcp probe [--client-metadata-url U]
// URL`: the MCP client of the official conformance suite's client
// scenarios (scripts/test.sh). It connects to URL through the registry,
// exactly as a configured `url = ...` server is connected (transport
// choice, fallback, roots, progress, logging, OAuth with U as
// oauth_client_metadata_url), lists the tools and calls each one with
// arguments made from its input schema, then closes the registry (ending
// the session).
// Exit 0 when every step worked, 1 otherwise, 2 on usage errors.
// The probe's own bounds, not defaults of docs/config.md: a conformance
// scenario that hangs fails in seconds instead of a configured server's
// minutes.
const (
	probeStepTimeout = 20 * time.Second
	probeCallTimeout = 25 * time.Second
)

func cmdMCPProbe(args []string) int {
	fs := flag.NewFlagSet("agentls mcp probe", flag.ContinueOnError)
	cimd := fs.String("client-metadata-url", "", "present this Client ID Metadata Document `URL` as the OAuth client_id where the authorization server supports them, as oauth_client_metadata_url does")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: agentls mcp probe [--client-metadata-url URL] URL")
		fs.PrintDefaults()
	}
	rest, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) != 1 {
		fs.Usage()
		return 2
	}
	s := config.Server{Name: "probe", Origin: config.User, URL: rest[0], OAuthClientMetadataURL: *cimd,
		ConnectTimeout: probeStepTimeout, ListTimeout: probeStepTimeout, CallTimeout: probeCallTimeout}
	if err := probeURL(s.URL); err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp probe: %v\n", err)
		return 2
	}
	if *cimd != "" {
		if err := config.CheckClientMetadataURL(*cimd); err != nil {
			fmt.Fprintf(os.Stderr, "agentls mcp probe: %v\n", err)
			return 2
		}
	}
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "agentls: "+format+"\n", a...) }
	wd, _ := os.Getwd()
	// The suite's scenarios may hand a pre-registered client.
	var sc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		json.Unmarshal([]byte(c), &sc)
	}
	if sc.ClientID != "" {
		s.OAuthClientID = sc.ClientID
		if sc.ClientSecret != "" {
			os.Setenv("AGENTLS_PROBE_CLIENT_SECRET", sc.ClientSecret)
			s.OAuthClientSecretEnv = "AGENTLS_PROBE_CLIENT_SECRET"
		}
	}
	// Tokens live only as long as the probe.
	tokDir, err := os.MkdirTemp("", "agentls-probe-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp probe: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tokDir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !agent.ProbeRemote(ctx, s, []string{wd}, filepath.Join(tokDir, "tokens.json"), headlessBrowser, exampleArgs, os.Stdout, logf) {
		return 1
	}
	return 0
}

// headlessBrowser stands in for the user's browser in the probe: it
// follows the authorization URL's redirects (the suite's authorization
// server approves at once) to agentls's loopback listener.
func headlessBrowser(ctx context.Context, server, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func probeURL(u string) error {
	return config.CheckServerURL(u)
}

// exampleArgs fills every required property of a JSON Schema object with a
// value of its type: numbers 1, strings "test", booleans true.
func exampleArgs(schema json.RawMessage) json.RawMessage {
	var s struct {
		Properties map[string]struct {
			Type    any `json:"type"`
			Default any `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &s)
	out := map[string]any{}
	req := append([]string(nil), s.Required...)
	sort.Strings(req)
	for _, k := range req {
		p := s.Properties[k]
		if p.Default != nil {
			out[k] = p.Default
			continue
		}
		typ, _ := p.Type.(string)
		switch typ {
		case "number", "integer":
			out[k] = 1
		case "boolean":
			out[k] = true
		case "array":
			out[k] = []any{}
		case "object":
			out[k] = map[string]any{}
		default:
			out[k] = "test"
		}
	}
	b, _ := json.Marshal(out)
	return b
}
