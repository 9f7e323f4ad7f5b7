package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestClientMetadataCommand: agentls mcp client-metadata URL prints the
// document to host at URL (its client_id is URL), and refuses a URL that
// cannot be a client_id, saying what is expected.
func TestClientMetadataCommand(t *testing.T) {
	bin := testenv.Agentls(t)
	const u = "https://example.com/agentls/client.json"
	out, err := exec.Command(bin, "mcp", "client-metadata", u).Output()
	if err != nil {
		t.Fatalf("%v", err)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || doc.ClientID != u || len(doc.RedirectURIs) != 1 {
		t.Errorf("printed %s (%v)", out, err)
	}
	for _, args := range [][]string{{"http://example.com/client.json"}, {}} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, append([]string{"mcp", "client-metadata"}, args...)...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "https") {
			t.Errorf("client-metadata %q: %v, stderr %q; want exit 2 saying an https URL is expected", args, err, stderr.String())
		}
	}
}
