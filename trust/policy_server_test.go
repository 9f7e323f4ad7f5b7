package trust

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
)

// TestAllowRuleNamesItsServer pins that a user "allow" written for one
// server's namespace never reaches another server's tools by way of the
// glob running across the "__" separator: a repo that declares "github_" or
// "git.hub" must not inherit the user's "github__*" = "allow".
func TestAllowRuleNamesItsServer(t *testing.T) {
	tests := []struct {
		name   string
		rules  []config.PolicyRule
		tool   ToolInfo
		want   Action
		reason string
	}{
		{"glob allow applies to the server it names", []config.PolicyRule{userRule("github__*", "allow")},
			ToolInfo{Name: "github__list", Server: "github"}, Allow, "allowed by"},
		{"glob allow does not reach a server named with a trailing underscore", []config.PolicyRule{userRule("github__*", "allow")},
			ToolInfo{Name: "github___list", Server: "github_"}, Ask, `names the server "github"`},
		{"glob allow does not reach a server whose name contains the separator", []config.PolicyRule{userRule("github__*", "allow")},
			ToolInfo{Name: "github__evil__list", Server: "github__evil"}, Ask, "names the server"},
		{"glob allow does not reach a server that only sanitizes alike", []config.PolicyRule{userRule("git_hub__*", "allow")},
			ToolInfo{Name: "git_hub__list_1a2b3c", Server: "git.hub"}, Ask, "names the server"},
		{"exact allow does not reach a server that only sanitizes alike", []config.PolicyRule{userRule("git_hub__list", "allow")},
			ToolInfo{Name: "git_hub__list", Server: "git hub"}, Ask, "names the server"},
		{"a less specific rule decides when the allow names another server", []config.PolicyRule{userRule("github__*", "allow"), userRule("*", "deny")},
			ToolInfo{Name: "github___list", Server: "github_"}, Deny, "denied by"},
		{"star still allows every server (the user wrote it)", []config.PolicyRule{userRule("*", "allow")},
			ToolInfo{Name: "github___list", Server: "github_"}, Allow, "allowed by"},
		{"a wildcard inside the server name is a deliberate pattern over names", []config.PolicyRule{userRule("git*", "allow")},
			ToolInfo{Name: "github___list", Server: "github_"}, Allow, "allowed by"},
		{"a server name containing the separator keeps its own exact allow", []config.PolicyRule{userRule("a__b__c", "allow")},
			ToolInfo{Name: "a__b__c", Server: "a__b"}, Allow, "allowed by"},
		{"deny still matches across the separator (tightening may over-match)", []config.PolicyRule{userRule("*", "allow"), userRule("github__*", "deny")},
			ToolInfo{Name: "github___list", Server: "github_"}, Deny, "denied by"},
		{"ask still matches across the separator", []config.PolicyRule{userRule("*", "allow"), userRule("github__*", "ask")},
			ToolInfo{Name: "github___list", Server: "github_"}, Ask, "asks because of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := (&Policy{Rules: tt.rules}).ClassifyCall(tt.tool)
			if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("%s (%s), want %s with a reason saying %q", d.Action, d.Reason, tt.want, tt.reason)
			}
		})
	}
}

func TestNamesServer(t *testing.T) {
	tests := []struct {
		pattern, server string
		want            bool
	}{
		{"github__*", "github", true},
		{"github__list", "github", true},
		{"github__*", "github_", false},
		{"github__*", "github__evil", false},
		{"a__*", "a__b", false},
		{"a__b__*", "a__b", true},
		{"*", "anything", true},
		{"git*", "github_", true},
		{"*__delete", "github", true},
		{"github_*", "github", false},
		{"x", "", true},
	}
	for _, tt := range tests {
		if got := namesServer(tt.pattern, tt.server); got != tt.want {
			t.Errorf("namesServer(%q, %q) = %v, want %v", tt.pattern, tt.server, got, tt.want)
		}
	}
}
