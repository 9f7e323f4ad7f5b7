package neovim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestHelpTags builds the help tags of doc/agentls.txt with Neovim's own
// :helptags and checks that every command plugin/agentls.lua defines has
// its tag, so :help :AgentRun finds it.
func TestHelpTags(t *testing.T) {
	nvim := testenv.Editor(t, "nvim")
	src, err := os.ReadFile(filepath.Join("plugin", "agentls.lua"))
	if err != nil {
		t.Fatal(err)
	}
	commands := regexp.MustCompile(`cmd\("(Agent\w+)"`).FindAllStringSubmatch(string(src), -1)
	if len(commands) < 6 {
		t.Fatalf("found %d commands in plugin/agentls.lua, want at least 6", len(commands))
	}

	dir := t.TempDir()
	doc, err := os.ReadFile(filepath.Join("doc", "agentls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "doc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "doc", "agentls.txt"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "helptags "+filepath.Join(dir, "doc"), "-c", "qa!")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf(":helptags failed or complained: %v\n%s", err, out)
	}
	tags, err := os.ReadFile(filepath.Join(dir, "doc", "tags"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(tags), "\n") {
		if name, _, ok := strings.Cut(line, "\t"); ok {
			have[name] = true
		}
	}
	want := []string{"agentls", "agentls.setup()", "agentls.statusline()", "agentls-approvals", "agentls-plain"}
	for _, c := range commands {
		want = append(want, ":"+c[1])
	}
	for _, tag := range want {
		if !have[tag] {
			t.Errorf("doc/agentls.txt has no help tag *%s*", tag)
		}
	}
}
