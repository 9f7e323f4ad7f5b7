package helix_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// screen is a terminal program running in its own tmux server (a private
// socket), read with capture-pane and driven with send-keys.
type screen struct {
	t      *testing.T
	tmux   string
	socket string
}

// uniqueName is a short random name for sockets and process markers.
func uniqueName(prefix string) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return prefix + hex.EncodeToString(b)
}

// startScreen runs shellCommand in a detached 200x50 tmux session on a
// private socket; the tmux server is killed at cleanup.
func startScreen(t *testing.T, shellCommand string) *screen {
	t.Helper()
	s := &screen{t: t, tmux: testenv.Tool(t, "tmux"), socket: uniqueName("agentls-hx-")}
	// -f /dev/null: the user's tmux.conf must not change keys or the screen.
	s.run("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "hx", shellCommand)
	t.Cleanup(func() {
		_ = exec.Command(s.tmux, "-L", s.socket, "kill-server").Run()
		testenv.WaitNoProcesses(t, s.socket, 5*time.Second)
	})
	// Keep the pane after the program exits, so a crash stays readable.
	s.run("set-option", "-t", "hx", "remain-on-exit", "on")
	return s
}

func (s *screen) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends tmux key names ("Space", "Enter", "Escape", "Down") or literal
// text, one argument each.
func (s *screen) keys(keys ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys", "-t", "hx"}, keys...)...)
}

// escape returns Helix to normal mode. It pauses after the key: an Escape
// followed at once by ":" reaches Helix as one Alt+: key.
func (s *screen) escape() {
	s.t.Helper()
	s.keys("Escape")
	time.Sleep(250 * time.Millisecond)
}

// command runs a typed command (":w", ":lsp-workspace-command agentls.approve") from normal mode.
func (s *screen) command(cmd string) {
	s.t.Helper()
	s.escape()
	s.text(cmd)
	s.keys("Enter")
}

// text types literal text.
func (s *screen) text(text string) {
	s.t.Helper()
	s.run("send-keys", "-t", "hx", "-l", text)
}

// capture returns the visible screen as text.
func (s *screen) capture() string {
	s.t.Helper()
	return s.run("capture-pane", "-p", "-t", "hx")
}

// waitFor polls the screen until it matches re, failing the test with the
// last screen when within passes first. Every wait in these tests is bounded.
func (s *screen) waitFor(re *regexp.Regexp, within time.Duration, what string) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		scr := s.capture()
		if re.MatchString(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %v for %s (%s); the screen:\n%s", within, what, re, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// menuRow matches a row of Helix's code action menu. The menu is drawn over
// the buffer, one item a row, usually right of the gutter but right of the
// cursor's text when a whole line is selected; either way two spaces or more
// stand before the item. The status line also names actions ("run code
// action 'agentls: Allow once'"), always right after a quote. An MCP
// server's question lists its answers as "agentls: <field>: <value>: <server> asks: ...".
var menuRow = regexp.MustCompile(`(?:^|\s\s)(agentls: (?:Allow once|Always allow|Always deny|Trust and start|Deny|Run|Fix with agent|Cancel task|Mode|Forget rule|Rewind|Resume session|Decline|Accept with defaults|[^:]{1,40}: [^:]+: \S+ asks:).*?)\s*$`)

// menuItems returns the code action menu's agentls items, top to bottom.
func menuItems(scr string) []string {
	var out []string
	for _, row := range strings.Split(scr, "\n") {
		if m := menuRow.FindStringSubmatch(row); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// pickCodeAction opens the code action menu (space a) until an item matching
// want is listed, moves to it and accepts it. Helix pre-selects the first
// item; Down moves one. It returns the item's text. Servers attach and
// approvals arrive asynchronously, so it reopens the menu until within passes.
func (s *screen) pickCodeAction(want *regexp.Regexp, within time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	var scr string
	for time.Now().Before(deadline) {
		s.keys("Space", "a")
		menuDeadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(menuDeadline) {
			scr = s.capture()
			items := menuItems(scr)
			for i, it := range items {
				if !want.MatchString(it) {
					continue
				}
				for range i {
					s.keys("Down")
				}
				s.keys("Enter")
				return it
			}
			time.Sleep(100 * time.Millisecond)
		}
		s.escape()
	}
	s.t.Fatalf("no code action matching %s within %v; the last screen:\n%s", want, within, scr)
	return ""
}

// shellQuote quotes one word for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellLine renders env and argv as one sh command line.
func shellLine(env map[string]string, argv ...string) string {
	var b strings.Builder
	b.WriteString("exec env")
	for k, v := range env {
		fmt.Fprintf(&b, " %s=%s", k, shellQuote(v))
	}
	for _, a := range argv {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}
