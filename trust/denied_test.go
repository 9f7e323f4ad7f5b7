package trust

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
)

// TestDeniedHintNamesOnlyWhatThePolicyRefuses: of the paths a confined
// program's stderr names on a refusal line, the hint names the one its
// policy does not grant (pyenv's shim is granted, the libexec script it
// runs is not), advises [sandbox] read for an ordinary folder, never for
// a secret one, and says a failed name lookup means no network.
func TestDeniedHintNamesOnlyWhatThePolicyRefuses(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	shims, libexec := filepath.Join(home, ".pyenv", "shims"), filepath.Join(home, ".pyenv", "libexec", "pyenv")
	c := ServerConfinement{Confined: true, Policy: sandbox.Policy{Exec: []string{"/usr", shims}}}
	ed := config.Server{Name: "ed", Origin: config.Editor, Command: "python3"}
	for _, tc := range []struct{ name, stderr, want, not string }{
		{"the refused one of two paths", shims + "/python3: line 12: " + libexec + ": Permission denied",
			"the sandbox refused " + libexec + " (outside what it may read, run or write); to let it read and run " + filepath.Dir(libexec) + `, add "` + filepath.Dir(libexec) + `" to [sandbox] read`, shims + "/python3 ("},
		{"python's own words", "python3: can't open file '/opt/srv/server.py': [Errno 13] Permission denied", "the sandbox refused /opt/srv/server.py", ""},
		{"a secret folder is never advised", "open " + home + "/.ssh/id_ed25519: permission denied", "which no confined program is given", "[sandbox] read"},
		{"no refusal, no path", "error: something else at /opt/x", "", "refused"},
		{"a granted path is no refusal", "/usr/bin/env: permission denied", "", "refused"},
		{"no network", "npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org", `choose "allow with network" on its launch card`, "refused"},
		{"an escape in a path is not quoted back", "/opt/a\x1b[2Jb: Permission denied", "the sandbox refused /opt/a ", "\x1b"},
	} {
		got := c.DeniedHint(ed, tc.stderr)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("%s: hint %q; want it to say %q and not %q", tc.name, got, tc.want, tc.not)
		}
	}
	if got := (ServerConfinement{}).DeniedHint(ed, "/x: Permission denied"); got != "" {
		t.Errorf("an unconfined server gets a hint: %q", got)
	}
}
