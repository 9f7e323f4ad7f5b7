package helix_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

const original = `package main

// agent: add a function Sum that adds up a slice of ints
func main() {}
`

// instruction has a plain sentence on line 3, for "Run selection as prompt".
const instruction = `package main

// Write a function Sum that adds up a slice of ints.
func main() {}
`

const rewritten = `package main

// Sum adds up xs.
func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

func main() {}
`

// helixWorld is a workspace, a user config for agentls pointing at the fake
// model, a Helix config from agentls-languages.sh, and Helix running on a file
// of the workspace under tmux.
type helixWorld struct {
	dir, ws, file, log string
	model              *modeltest.Server
	scr                *screen
	env                map[string]string // Helix's environment, for another program on the same workspace
	helix              string            // the shell command that started Helix
}

func startHelix(t *testing.T, text string, turns ...modeltest.Turn) *helixWorld {
	t.Helper()
	return startHelixWith(t, map[string]string{"main.go": text}, turns...)
}

// startHelixWith is startHelix with more workspace files; "{{ws}}" in their
// text becomes the workspace's path. Helix opens main.go at line 3.
func startHelixWith(t *testing.T, files map[string]string, turns ...modeltest.Turn) *helixWorld {
	t.Helper()
	return startHelixConfig(t, files, "", turns...)
}

// startHelixConfig is startHelixWith with extra user config for agentls
// ("{{model}}" in it becomes the fake model's URL).
func startHelixConfig(t *testing.T, files map[string]string, extraConfig string, turns ...modeltest.Turn) *helixWorld {
	t.Helper()
	hx := testenv.Editor(t, "hx")
	testenv.Tool(t, "tmux")
	agentls := testenv.Agentls(t)

	// Every process of this test carries dir in its command line (the agentls
	// symlink, the file Helix opens), so the leak check below finds them all.
	dir := t.TempDir()
	w := &helixWorld{dir: dir, ws: filepath.Join(dir, "ws"), log: filepath.Join(dir, "helix.log")}
	w.file = filepath.Join(w.ws, "main.go")
	bin := filepath.Join(dir, "bin")
	home := filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(w.ws, ".git"), bin, filepath.Join(home, ".config", "helix")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(w.ws, "go.mod"), "module example.com/sum\n\ngo 1.22\n")
	for rel, text := range files {
		p := filepath.Join(w.ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, strings.ReplaceAll(text, "{{ws}}", w.ws))
	}
	link := filepath.Join(bin, "agentls")
	if err := os.Symlink(agentls, link); err != nil {
		t.Fatal(err)
	}

	w.model = modeltest.New(t)
	w.model.Script(turns...)
	writeFile(t, filepath.Join(dir, "agentls.toml"), `[model]
provider = "openai"
name = "fake-model"
base_url = "`+w.model.URL()+`/v1"
api_key_env = "AGENTLS_TEST_KEY"

[prices."fake-model"]
input = 3
output = 15
cache_read = 0.3
`+strings.ReplaceAll(extraConfig, "{{model}}", w.model.URL()))

	// The Helix config is what a user gets from the script, with the command
	// pointing at this test's agentls.
	out, stderr, code := script(t, "--command", link, "go")
	if code != 0 {
		t.Fatalf("agentls-languages.sh: exit %d: %s", code, stderr)
	}
	writeFile(t, filepath.Join(home, ".config", "helix", "languages.toml"), out)
	writeFile(t, filepath.Join(home, ".config", "helix", "config.toml"), "[editor]\nmouse = false\n")

	env := map[string]string{
		"HOME":             home,
		"XDG_CONFIG_HOME":  filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":   filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":   filepath.Join(dir, "state"),
		"AGENTLS_CONFIG":   filepath.Join(dir, "agentls.toml"),
		"AGENTLS_TEST_KEY": "test",
		// No gopls or golangci-lint from the machine: only agentls answers
		// (and node, for the MCP servers' launchers).
		"PATH": nodeDir(t) + ":/usr/local/bin:/usr/bin:/bin",
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
		env[k] = "" // the fake model only, even on a developer's machine
	}
	// Registered before the screen, so it runs after the tmux server is killed.
	t.Cleanup(func() { testenv.WaitNoProcesses(t, dir, 10*time.Second) })
	w.env, w.helix = env, "cd "+shellQuote(w.ws)+" && "+shellLine(env, hx, "-vv", "--log", w.log, w.file+":3")
	w.scr = startScreen(t, w.helix)
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(w.log); err == nil {
				t.Logf("helix.log (tail):\n%s", tail(string(b), 12000))
			}
		}
	})
	w.scr.waitFor(regexp.MustCompile(regexp.QuoteMeta(strings.Split(files["main.go"], "\n")[2])), 15*time.Second, "Helix to show main.go")
	return w
}

// nodeDir is the folder of the node that tools/node's launchers run with.
func nodeDir(t *testing.T) string {
	t.Helper()
	return filepath.Dir(testenv.Tool(t, "node"))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// waitRequests polls the fake model until it has seen n requests.
func waitRequests(t *testing.T, m *modeltest.Server, n int, within time.Duration) []modeltest.Request {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		reqs := m.Requests()
		if len(reqs) >= n {
			return reqs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake model saw %d requests within %v, want %d", len(reqs), within, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The scenario: agentls configured in languages.toml, a code action
// starts a task from an `agent:` directive, the write's approval arrives as a
// code action and is accepted through it, the edit lands in the buffer.
func TestHelixRunsADirectiveAndApprovesTheWriteByCodeAction(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"path": "main.go", "content": rewritten})
	w := startHelix(t, original,
		modeltest.Turn{Text: "I will add Sum.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(input)}}},
		modeltest.Turn{Text: "Added Sum."},
	)
	scr := w.scr

	picked := scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	t.Logf("picked %q", picked)

	// The model asks to write; Helix cannot show a dialog, so the approval
	// comes back as code actions, and the diagnostic on the directive's
	// line (drawn under the cursor's line) shows the write as a unified
	// diff with line numbers.
	diff := scr.waitFor(regexp.MustCompile(`@@ -\d+,\d+ \+\d+,\d+ @@`), 30*time.Second, "the write's diff in the diagnostic")
	for _, want := range []string{"1  1  package main", "3    -// agent: add a function Sum", "4 +func Sum(xs []int) int {"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diagnostic's diff lacks %q:\n%s", want, diff)
		}
	}
	picked = scr.pickCodeAction(regexp.MustCompile(`^agentls: Allow once`), 30*time.Second)
	t.Logf("picked %q", picked)

	scr.waitFor(regexp.MustCompile(`func Sum\(xs \[\]int\) int \{`), 20*time.Second, "the edit in the buffer")
	reqs := waitRequests(t, w.model, 2, 20*time.Second)

	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].ToolUseID != "call_1" || results[0].IsError {
		t.Fatalf("the second model request carries tool results %+v, want one successful result for call_1", results)
	}
	if !strings.Contains(results[0].Content, "wrote") {
		t.Errorf("tool result %q does not say the file was written", results[0].Content)
	}
	// The edit went through the editor (workspace/applyEdit), so the file on
	// disk is unchanged until the user saves.
	if b, _ := os.ReadFile(w.file); string(b) != original {
		t.Errorf("main.go on disk changed before :w:\n%s", b)
	}
	// The edit is one step of Helix's undo history.
	scr.escape()
	scr.keys("u")
	scr.waitFor(regexp.MustCompile(`agent: add a function Sum`), 10*time.Second, "undo to bring the directive back")
	scr.keys("U")
	scr.waitFor(regexp.MustCompile(`func Sum\(xs \[\]int\) int \{`), 10*time.Second, "redo to bring the edit back")
	scr.command(":w")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(w.file)
		if string(b) == rewritten {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after :w main.go is\n%s\nwant\n%s", b, rewritten)
		}
		time.Sleep(100 * time.Millisecond)
	}
	quit(t, scr)
}

// quit closes Helix, which shuts agentls down; the leak check at cleanup
// then finds neither.
func quit(t *testing.T, scr *screen) {
	t.Helper()
	scr.command(":qa!")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command(scr.tmux, "-L", scr.socket, "list-panes", "-t", "hx", "-F", "#{pane_dead}").Output()
		if err != nil || strings.TrimSpace(string(out)) == "1" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("Helix did not quit within 10s; the screen:\n%s", scr.capture())
}

// Deny is a code action too; the model is told, and the buffer keeps its text.
func TestHelixDenyByCodeActionKeepsTheBuffer(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"path": "main.go", "content": rewritten})
	w := startHelix(t, original,
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(input)}}},
		modeltest.Turn{Text: "Left main.go alone."},
	)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Deny`), 30*time.Second)

	reqs := waitRequests(t, w.model, 2, 20*time.Second)
	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].ToolUseID != "call_1" || !results[0].IsError {
		t.Fatalf("after Deny the model got tool results %+v, want one error result for call_1", results)
	}
	// The task is over (its summary is on the status line) and the buffer is as it was.
	scr := w.scr.waitFor(regexp.MustCompile(`Left main\.go alone\.`), 10*time.Second, "the task's summary")
	if strings.Contains(scr, "func Sum(") {
		t.Errorf("the denied write reached the buffer:\n%s", scr)
	}
	if b, _ := os.ReadFile(w.file); string(b) != original {
		t.Errorf("the denied write reached the disk:\n%s", b)
	}
	quit(t, w.scr)
}

// The other half of the guide: a selection run with "Run selection as
// prompt", the approval accepted from :lsp-workspace-command, and the
// transcript opened by the server in a Helix buffer (window/showDocument).
func TestHelixSelectionWorkspaceCommandApproveAndTranscript(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"path": "main.go", "content": rewritten})
	w := startHelix(t, instruction,
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(input)}}},
		modeltest.Turn{Text: "Sum is in place."},
	)
	w.scr.keys("x") // select the directive's whole line
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run selection as prompt`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`approval needed`), 20*time.Second, "the approval message")

	w.scr.command(":lsp-workspace-command agentls.approve")
	w.scr.waitFor(regexp.MustCompile(`func Sum\(xs \[\]int\) int \{`), 20*time.Second, "the edit in the buffer")
	reqs := waitRequests(t, w.model, 2, 20*time.Second)
	if got := reqs[0].LastUserText(); !strings.Contains(got, "Write a function Sum that adds up a slice of ints.") {
		t.Errorf("the selected line did not reach the model as the prompt: %q", got)
	}
	if results := reqs[1].ToolResults(); len(results) != 1 || results[0].IsError {
		t.Fatalf("tool results %+v, want one successful result", results)
	}
	w.scr.waitFor(regexp.MustCompile(`Sum is in place\.`), 10*time.Second, "the task's summary")

	w.scr.command(":lsp-workspace-command agentls.transcript")
	// The transcript buffer shows the final answer, which main.go does not contain,
	// and its file is in the state directory, not the workspace.
	scr := w.scr.waitFor(regexp.MustCompile(`transcripts/.*\.md`), 15*time.Second, "the transcript buffer")
	if !strings.Contains(scr, "Sum is in place.") {
		t.Errorf("the transcript buffer does not show the answer:\n%s", scr)
	}
	matches, _ := filepath.Glob(filepath.Join(w.dir, "state", "*", "transcripts", "*.md"))
	if len(matches) != 1 {
		t.Errorf("want one transcript under XDG_STATE_HOME, found %q", matches)
	}
	quit(t, w.scr)
}

// A repository that declares an MCP server gets no process on open: Helix
// shows the launch card's choices as code actions, and the server starts only
// after "Trust and start" is picked. Quitting Helix reaps it (the leak check
// at cleanup looks for the workspace path in every command line).
func TestHelixStartsAWorkspaceMCPServerOnlyAfterTrustCodeAction(t *testing.T) {
	fsServer := testenv.NodeBin(t, "mcp-server-filesystem")
	w := startHelixWith(t, map[string]string{
		"main.go":              original,
		".agentls/config.toml": "[mcp.servers.fs]\ncommand = \"" + fsServer + "\"\nargs = [\"{{ws}}\"]\n",
	})
	marker := "mcp-server-filesystem " + w.ws
	w.scr.waitFor(regexp.MustCompile(`approval needed`), 20*time.Second, "the launch card's message")
	if left := testenv.ProcessesMatching(marker); len(left) > 0 {
		t.Fatalf("the workspace's MCP server runs before consent: %+v", left)
	}
	// The guide's advice before trusting: the server report shows the exact
	// command line (the launch card's detail has no document to sit on yet).
	w.scr.command(":lsp-workspace-command agentls.mcp.list")
	report := w.scr.waitFor(regexp.MustCompile(regexp.QuoteMeta(fsServer)), 15*time.Second, "the server report with the command line")
	if !strings.Contains(report, "needs_approval") {
		t.Errorf("the server report does not say fs waits for approval:\n%s", report)
	}
	w.scr.command(":buffer-close")
	picked := w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Trust and start`), 30*time.Second)
	if !strings.Contains(picked, "fs") {
		t.Errorf("the trust action %q does not name the server", picked)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(testenv.ProcessesMatching(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start within 20s of Trust and start; the screen:\n%s", w.scr.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
	quit(t, w.scr)
}

// A running task can be cancelled from the same menu; the model's stream is
// abandoned and the status line says the task ended.
func TestHelixCancelTaskByCodeAction(t *testing.T) {
	w := startHelix(t, original, modeltest.Turn{Text: "Thinking", Hang: true})
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	waitRequests(t, w.model, 1, 20*time.Second)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Cancel task`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`agentls: cancelled`), 15*time.Second, "the task's end on the status line")
	if n := len(w.model.Requests()); n != 1 {
		t.Errorf("the model saw %d requests; a cancelled task must not ask it again", n)
	}
	// The task is gone: the menu no longer offers to cancel it.
	w.scr.keys("Space", "a")
	scr := w.scr.waitFor(regexp.MustCompile(`agentls: Run "add a function Sum`), 10*time.Second, "the code action menu")
	for _, it := range menuItems(scr) {
		if strings.HasPrefix(it, "agentls: Cancel task") {
			t.Errorf("the menu still offers %q after the task was cancelled:\n%s", it, scr)
		}
	}
	quit(t, w.scr)
}

// Helix attaches agentls only to the languages agentls-languages.sh names, so
// it never tells agentls about a notes.txt it has open. The user types into
// that buffer without saving, and an approved edit of the file from a task
// started in main.go must not replace the buffer's text: agentls writes the
// disk, Helix's buffer keeps the typed line (Helix warns before a save
// overwrites a file changed on disk), and the tool result says so.
func TestHelixKeepsWhatWasTypedInABufferAgentlsWasNotToldAbout(t *testing.T) {
	w := startHelixWith(t, map[string]string{"main.go": original, "notes.txt": "alpha\nbeta\n"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "edit_file", Input: `{"path":"notes.txt","old_text":"beta","new_text":"BETA-BY-AGENT"}`}}},
		modeltest.Turn{Text: "Edited notes."},
	)
	scr := w.scr
	scr.command(":open notes.txt")
	scr.waitFor(regexp.MustCompile(`beta`), 10*time.Second, "notes.txt")
	scr.keys("g", "g", "O")
	scr.text("typed unsaved")
	scr.escape()
	scr.waitFor(regexp.MustCompile(`typed unsaved`), 10*time.Second, "the typed line")
	scr.command(":open main.go")
	scr.waitFor(regexp.MustCompile(`agent: add a function Sum`), 10*time.Second, "main.go")
	scr.keys("3", "g", "g")
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Allow once`), 30*time.Second)
	reqs := waitRequests(t, w.model, 2, 20*time.Second)

	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Content, "written on disk: the editor had not opened it with agentls") {
		t.Errorf("tool results %+v, want one success saying the edit was written on disk because the editor had not opened the file with agentls", results)
	}
	notes := filepath.Join(w.ws, "notes.txt")
	if b, _ := os.ReadFile(notes); string(b) != "alpha\nBETA-BY-AGENT\n" {
		t.Errorf("notes.txt on disk = %q, want the edit there", b)
	}
	scr.command(":open notes.txt")
	shown := scr.waitFor(regexp.MustCompile(`alpha`), 10*time.Second, "notes.txt again")
	if !strings.Contains(shown, "typed unsaved") || strings.Contains(shown, "BETA-BY-AGENT") {
		t.Errorf("Helix's buffer of notes.txt lost the typed line or took the edit over it; the screen:\n%s", shown)
	}
	// Saving now does not silently replace the agent's edit either: Helix
	// says the file was modified on disk and writes nothing.
	scr.command(":w")
	scr.waitFor(regexp.MustCompile(`modified by an external process`), 10*time.Second, "Helix to refuse :w over the file changed on disk")
	if b, _ := os.ReadFile(notes); string(b) != "alpha\nBETA-BY-AGENT\n" {
		t.Errorf("after a refused :w notes.txt on disk = %q, want the agent's edit kept", b)
	}
	quit(t, scr)
}

// TestHelixAndATerminalChatShareTheSession: a Helix user with `agentls
// chat` in a terminal beside it on the same workspace has one
// conversation. A code action's task in Helix; then `agentls chat` (no
// flags) says it joins the session of Helix's language server and shows
// it, and a follow-up there carries Helix's turn; Helix's next code action
// carries the chat's turn. Helix restarted while the chat runs: its first
// code action continues the chat's session, not a new one.
func TestHelixAndATerminalChatShareTheSession(t *testing.T) {
	w := startHelixWith(t, map[string]string{"main.go": "package main\n\n// agent: explain main\nfunc main() {}\n"},
		modeltest.Turn{Text: "It is an empty main."},
		modeltest.Turn{Text: "Nothing else, from the chat."},
		modeltest.Turn{Text: "Helix again, after the chat."},
		modeltest.Turn{Text: "A new Helix, same session."},
	)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "explain main"`), 30*time.Second)
	// The summary in the status line ends with the turn's tokens, cache
	// share and cost, then the session's.
	w.scr.waitFor(regexp.MustCompile(`It is an empty main\. · [0-9,]+ in \([0-9]+% cache\) · [0-9,]+ out · \$[0-9.]+ · session [0-9,]+ in, [0-9,]+ out, \$[0-9.]+`), 20*time.Second, "the task's summary with its usage")

	chat := &screen{t: t, tmux: w.scr.tmux, socket: w.scr.socket}
	agentls := filepath.Join(w.dir, "bin", "agentls")
	w.scr.run("new-session", "-d", "-x", "160", "-y", "50", "-s", "chat", "cd "+shellQuote(w.ws)+" && "+shellLine(w.env, agentls, "chat")+"; sleep 30")
	chatKeys := func(keys ...string) { chat.run(append([]string{"send-keys", "-t", "chat"}, keys...)...) }
	chatScreen := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			scr := chat.run("capture-pane", "-p", "-S", "-200", "-t", "chat")
			if strings.Contains(scr, want) {
				return scr
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the chat:\n%s", want, scr)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	scr := chatScreen("this is the session of helix's language server in this workspace")
	for _, want := range []string{"› explain main", "It is an empty main."} {
		if !strings.Contains(scr, want) {
			t.Errorf("the chat does not show Helix's turn %q:\n%s", want, scr)
		}
	}
	chatKeys("-l", "anything else?")
	chatKeys("Enter")
	chatScreen("Nothing else, from the chat.")
	reqs := waitRequests(t, w.model, 2, 20*time.Second)
	if body := string(reqs[1].Body); !strings.Contains(body, "explain main") || !strings.Contains(body, "It is an empty main.") {
		t.Errorf("the chat's turn does not carry Helix's:\n%s", body)
	}

	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "explain main"`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`Helix again, after the chat\.`), 20*time.Second, "the second task's summary")
	reqs = waitRequests(t, w.model, 3, 20*time.Second)
	if body := string(reqs[2].Body); !strings.Contains(body, "anything else?") || !strings.Contains(body, "Nothing else, from the chat.") {
		t.Errorf("Helix's next task does not carry the chat's turn:\n%s", body)
	}

	// Helix quits and starts again while the chat runs: its first code
	// action continues the chat's session.
	quit(t, w.scr)
	w.scr.run("respawn-pane", "-k", "-t", "hx", w.helix)
	w.scr.waitFor(regexp.MustCompile(`agent: explain main`), 15*time.Second, "Helix to show main.go again")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "explain main"`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`A new Helix, same session\.`), 20*time.Second, "the restarted Helix's summary")
	reqs = waitRequests(t, w.model, 4, 20*time.Second)
	if body := string(reqs[3].Body); !strings.Contains(body, "anything else?") || !strings.Contains(body, "Helix again, after the chat.") {
		t.Errorf("the restarted Helix's task started a new session, not the chat's:\n%s", body)
	}
	quit(t, w.scr)
	chatKeys("C-d")
}

// TestHelixResumesAPastSessionByCodeAction: Helix's resume picker is its
// code action menu. A task in one Helix; a restarted Helix starts a new
// session with its first task; then "agentls: Resume session: explain
// main (1 turn, ...)" makes the first session the one its tasks
// continue: the next task is sent the first session's turn, not the
// second's.
func TestHelixResumesAPastSessionByCodeAction(t *testing.T) {
	w := startHelixWith(t, map[string]string{"main.go": "package main\n\n// agent: explain main\nfunc main() {}\n"},
		modeltest.Turn{Text: "It is an empty main."},
		modeltest.Turn{Text: "A fresh start."},
		modeltest.Turn{Text: "Back where we were."},
	)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "explain main"`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`It is an empty main\.`), 20*time.Second, "the first task's summary")

	quit(t, w.scr)
	w.scr.run("respawn-pane", "-k", "-t", "hx", w.helix)
	w.scr.waitFor(regexp.MustCompile(`agent: explain main`), 15*time.Second, "Helix to show main.go again")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "explain main"`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`A fresh start\.`), 20*time.Second, "the restarted Helix's summary")
	reqs := waitRequests(t, w.model, 2, 20*time.Second)
	if body := string(reqs[1].Body); strings.Contains(body, "It is an empty main.") {
		t.Fatalf("the restarted Helix continued the first session on its own, so resuming proves nothing:\n%s", body)
	}

	picked := w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Resume session: explain main \(1 turn, `), 30*time.Second)
	t.Logf("picked %q", picked)
	w.scr.waitFor(regexp.MustCompile(`resumed session [0-9a-f-]+: explain main \(1 turn\)`), 20*time.Second, "the resume message")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "explain main"`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`Back where we were\.`), 20*time.Second, "the resumed task's summary")
	reqs = waitRequests(t, w.model, 3, 20*time.Second)
	if body := string(reqs[2].Body); !strings.Contains(body, "It is an empty main.") || strings.Contains(body, "A fresh start.") {
		t.Errorf("the task after resuming was not sent the first session's turn alone:\n%s", body)
	}
	quit(t, w.scr)
}
