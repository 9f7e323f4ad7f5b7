package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontsImportOnlyTheCoreAndTheWire checks the layering with go list:
// the fronts (server for LSP, acp, the command line) present what the core
// decided and never reach past it into mcp or trust, where decisions and
// processes live (agent/front.go re-exports the little they show).
func TestFrontsImportOnlyTheCoreAndTheWire(t *testing.T) {
	fronts := []string{"./server", "./acp", "./cmd/agentls"}
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}"}, fronts...)...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(fronts) {
		t.Fatalf("go list printed %d packages, want %d:\n%s", len(lines), len(fronts), out)
	}
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, ": ")
		core := false
		for _, imp := range strings.Fields(imports) {
			switch imp {
			case "github.com/agentls/agentls/mcp", "github.com/agentls/agentls/trust":
				t.Errorf("%s imports %s: a front goes through the core (package agent)", pkg, imp)
			case "github.com/agentls/agentls/agent":
				core = true
			}
		}
		if !core {
			t.Errorf("%s does not import the core (package agent): %s", pkg, imports)
		}
	}
}
