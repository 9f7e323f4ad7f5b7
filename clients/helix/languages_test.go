package helix_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// script runs agentls-languages.sh with args and returns stdout, stderr and
// the exit code.
func script(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"agentls-languages.sh"}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run agentls-languages.sh: %v", err)
	}
	return stdout.String(), stderr.String(), code
}

func TestLanguagesTomlIsTheScriptsOutputForAll(t *testing.T) {
	out, stderr, code := script(t, "--all")
	if code != 0 {
		t.Fatalf("agentls-languages.sh --all: exit %d: %s", code, stderr)
	}
	file, err := os.ReadFile("languages.toml")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(file) {
		t.Fatalf("languages.toml is stale: regenerate it with\n  sh clients/helix/agentls-languages.sh --all > clients/helix/languages.toml")
	}
}

func TestScript(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string // substrings of stdout (code 0) or stderr
		dontWant []string
	}{
		{"go keeps gopls and golangci-lint beside agentls", []string{"go"}, 0,
			[]string{`name = "go"`, `language-servers = ["gopls", "golangci-lint-lsp", "agentls"]`, "[language-server.agentls]", `args = ["serve"]`}, nil},
		{"a language without default servers gets agentls alone", []string{"make"}, 0,
			[]string{`language-servers = ["agentls"]`}, nil},
		{"an unknown language is an error naming it and the way out", []string{"go", "klingon"}, 1,
			[]string{`unknown language "klingon"`, "klingon=server1,server2", "hx --health klingon"}, nil},
		{"a typo prints nothing on stdout", []string{"go", "klingon"}, 1,
			nil, nil},
		{"NAME=SERVERS adds a language the table does not know", []string{"gleam=gleam-ls,other"}, 0,
			[]string{`name = "gleam"`, `["gleam-ls", "other", "agentls"]`}, nil},
		{"a server name with quotes is refused", []string{`x=a"b`}, 1,
			[]string{"is not a language server name"}, nil},
		{"a language named twice is printed once", []string{"rust", "rust"}, 0,
			[]string{`name = "rust"`}, nil},
		{"--command sets the agentls path", []string{"--command", "/opt/agentls/bin/agentls", "toml"}, 0,
			[]string{`command = "/opt/agentls/bin/agentls"`}, nil},
		{"--no-server-block prints only the languages", []string{"--no-server-block", "c"}, 0,
			[]string{`name = "c"`}, []string{"[language-server.agentls]"}},
		{"no language is a usage error", nil, 2, []string{"usage:"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := script(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, stderr)
			}
			text := out
			if code != 0 {
				text = stderr
				if out != "" {
					t.Errorf("a failing run printed on stdout (it would land in languages.toml):\n%s", out)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(text, w) {
					t.Errorf("output has %q:\n%s", w, text)
				}
			}
			if strings.Count(out, `name = "rust"`) > 1 {
				t.Errorf("rust printed twice:\n%s", out)
			}
		})
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// healthServers runs `hx --health lang` with home as HOME and returns the
// commands of the language servers Helix would start, in order.
func healthServers(t *testing.T, hx, home, lang string) []string {
	t.Helper()
	cmd := exec.Command(hx, "--health", lang)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hx --health %s: %v\n%s", lang, err, b)
	}
	var servers []string
	in := false
	for _, line := range strings.Split(ansi.ReplaceAllString(string(b), ""), "\n") {
		if strings.HasPrefix(line, "Configured language servers:") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			break
		}
		// "  ✓ gopls: /usr/bin/gopls" or "  ✘ gopls: 'gopls' not found in $PATH"
		f := strings.Fields(line)
		if len(f) >= 2 {
			servers = append(servers, strings.TrimSuffix(f[1], ":"))
		}
	}
	return servers
}

// The load-bearing check: Helix replaces a language's default servers with
// the list a user writes, so every entry must repeat the defaults of the
// real Helix, or installing agentls would silently switch gopls off.
func TestLanguagesTomlKeepsHelixDefaultServers(t *testing.T) {
	hx := testenv.Editor(t, "hx")
	bare := t.TempDir()
	configured := t.TempDir()
	if err := os.MkdirAll(filepath.Join(configured, ".config", "helix"), 0o755); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("languages.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configured, ".config", "helix", "languages.toml"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	langs := regexp.MustCompile(`(?m)^name = "([^"]+)"$`).FindAllStringSubmatch(string(file), -1)
	if len(langs) < 10 {
		t.Fatalf("languages.toml names %d languages, want the common ones", len(langs))
	}
	for _, m := range langs {
		lang := m[1]
		want := append(healthServers(t, hx, bare, lang), "agentls")
		got := healthServers(t, hx, configured, lang)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Helix would start %q, want its defaults plus agentls: %q", lang, got, want)
		}
	}
}
