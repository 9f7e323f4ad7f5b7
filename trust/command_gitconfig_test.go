package trust

import "testing"

// TestGitConfigReadsOutsideTheWorkspaceAreFlagged: the user's global and
// system git config live outside the workspace and hold credentials
// (http.extraHeader = "Authorization: Bearer …", credential helpers, URL
// rewrites with tokens). A dump of the merged config, or a read of those
// keys, under autopilot would hand them to the model.
func TestGitConfigReadsOutsideTheWorkspaceAreFlagged(t *testing.T) {
	flag := []string{
		"git config --list", "git config -l", "git config --global --list", "git config --system --get core.editor",
		"git config --get-regexp .", "git config --get http.extraheader", "git config --get-all http.https://x.extraheader",
		"git config --get credential.helper", "git config --get url.https://tok@x/.insteadof", "git config --get github.token",
		"git config --includes --list", "git config --show-origin --list",
	}
	safe := []string{
		"git config --local --list", "git config --get user.name", "git config --get remote.origin.url",
		"git config --local --get-regexp remote", "git config --local --get http.extraheader",
	}
	for _, c := range flag {
		if v := ClassifyCommand([]string{c}, true); v.Safe {
			t.Errorf("%q called safe; it reads git config outside the workspace", c)
		}
	}
	for _, c := range safe {
		if v := ClassifyCommand([]string{c}, true); !v.Safe {
			t.Errorf("%q flagged: %v", c, v.Reasons)
		}
	}
}
