package trust

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
)

// TestLaunchCardSaysWhatTheFingerprintDoesNotCover pins the card's notes on
// what an approval cannot pin: a program the repository ships (its bytes
// may change after approval without changing the fingerprint) and
// variables whose values agentls passes from its own environment (a repo
// writing TOKEN = "${ANTHROPIC_API_KEY}" gets the key the minimal
// environment keeps from it).
func TestLaunchCardSaysWhatTheFingerprintDoesNotCover(t *testing.T) {
	ws := func(cmd, cwd string, env map[string]string) config.Server {
		return config.Server{Name: "x", Origin: config.Workspace, WorkspaceRoot: "/repo", Command: cmd, Cwd: cwd, Env: env}
	}
	const inside = "program inside the workspace"
	const runsIn = "runs in the workspace"
	const passes = "from agentls's environment: "
	tests := []struct {
		name      string
		s         config.Server
		want, not []string
	}{
		{"a relative command is the repo's program", ws("./evil", "/repo", nil), []string{inside}, nil},
		{"a node_modules program is the repo's program", ws("node_modules/.bin/x", "/repo", nil), []string{inside}, nil},
		{"an absolute path inside the root is the repo's program", ws("/repo/bin/x", "/tmp", nil), []string{inside}, []string{runsIn}},
		{"a relative command resolves against cwd", ws("../x", "/repo/a/b", nil), []string{inside}, nil},
		{"a bare command found through a declared PATH inside the root is the repo's program", ws("node", "/tmp", map[string]string{"PATH": "/repo/bin:/usr/bin"}), []string{inside}, nil},
		{"a declared PATH outside the root is not flagged", ws("node", "/tmp", map[string]string{"PATH": "/opt/bin:/usr/bin"}), nil, []string{inside}},
		{"a bare command run in the workspace can load code from it", ws("npx", "/repo", nil), []string{runsIn}, []string{inside}},
		{"a program outside run outside is not flagged", ws("/usr/bin/node", "/tmp", nil), nil, []string{inside, runsIn}},
		{"a path that only shares a prefix with the root is outside", ws("/repository/x", "/tmp", nil), nil, []string{inside}},
		{"an env reference names the variable passed", ws("/usr/bin/node", "/tmp", map[string]string{"TOKEN": "${ANTHROPIC_API_KEY}", "MODE": "${MODE:-dev}", "LIT": "$${NOT}"}),
			[]string{passes + "ANTHROPIC_API_KEY, MODE\n"}, []string{"MODE, NOT"}},
		{"no env reference, no such line", ws("/usr/bin/node", "/tmp", map[string]string{"A": "b"}), nil, []string{passes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, detail := LaunchCard(tt.s)
			for _, w := range tt.want {
				if !strings.Contains(detail, w) {
					t.Errorf("card lacks %q:\n%s", w, detail)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(detail, n) {
					t.Errorf("card says %q but should not:\n%s", n, detail)
				}
			}
		})
	}
}
