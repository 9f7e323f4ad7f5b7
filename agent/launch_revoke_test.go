package agent

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// TestRevokeServerSaysWhatItRevoked pins RevokeServer's answer for one name:
// it names only what it revoked, and a name that is neither configured nor
// approved is an error naming the workspace servers, so a typo never looks
// like it worked.
func TestRevokeServerSaysWhatItRevoked(t *testing.T) {
	for _, tc := range []struct {
		name     string
		approve  []string // servers approved in the store before the revoke
		revoke   string
		want     []string
		wantErrs []string // substrings of the error, when one is expected
	}{
		{name: "an approved workspace server is revoked and named",
			approve: []string{"repofs"}, revoke: "repofs", want: []string{"repofs"}},
		{name: "a configured server that was never approved revokes nothing",
			revoke: "repofs", want: []string{}},
		{name: "a configured user server has no launch consent to revoke",
			revoke: "userfs", want: []string{}},
		{name: "a name that is not configured is an error naming the workspace servers",
			approve: []string{"repofs"}, revoke: "repfs", wantErrs: []string{`"repfs"`, "other, repofs"}},
		{name: "a stale approval of a server no longer configured is still revoked",
			approve: []string{"gone"}, revoke: "gone", want: []string{"gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
				ws := func(name string) config.Server {
					return config.Server{Name: name, Origin: config.Workspace, WorkspaceRoot: root, Command: "agentls-never-started", Cwd: root,
						Source: config.Source{File: filepath.Join(root, ".agentls", "config.toml"), Line: 1}}
				}
				// A user server with an empty command fails to start: no process.
				return []config.Server{ws("repofs"), ws("other"), {Name: "userfs", Origin: config.User, Source: config.Source{File: "config.toml", Line: 1}}}
			}))
			for _, n := range tc.approve {
				fp := strings.Repeat("a", 64)
				if srv, ok := f.core.reg.Server(n); ok {
					fp = trust.ServerFingerprint(srv)
				}
				if err := f.core.store.ApproveLaunch(f.dir, n, fp); err != nil {
					t.Fatal(err)
				}
			}
			got, err := f.core.RevokeServer(tc.revoke)
			if tc.wantErrs != nil {
				if err == nil {
					t.Fatalf("RevokeServer(%q) = %v, want an error", tc.revoke, got)
				}
				for _, s := range tc.wantErrs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
			} else if err != nil || got == nil || !slices.Equal(got, tc.want) {
				t.Fatalf("RevokeServer(%q) = %#v, %v; want %#v", tc.revoke, got, err, tc.want)
			}
			left, err := f.core.store.Approvals(f.dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tc.approve {
				if _, still := left[n]; still == (n == tc.revoke) {
					t.Errorf("after revoking %q, approval of %q present = %v", tc.revoke, n, still)
				}
			}
			for _, s := range f.core.ServerList() {
				if s.Origin == config.Workspace && s.State != mcp.NeedsApproval {
					t.Errorf("server %s is %s: revoke must start nothing", s.Name, s.State)
				}
			}
		})
	}
}
