package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestChatOnARealTerminal is a conversation in `agentls chat` in a tmux
// pane, as a user has it: a question whose answer needs an MCP call
// (its card asked in place, allowed with y), a follow-up that refers to
// the first answer and makes the model propose an edit (the card shows
// the unified diff; allowed), the arrow keys bringing back what was
// typed, a third turn cancelled with Ctrl-C while it streams, Ctrl-D to
// leave, then `agentls chat --continue` reopening the session: the
// conversation is shown again and a new turn carries all of it.
func TestChatOnARealTerminal(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	hello := filepath.Join(e.ws, "hello.txt")
	os.WriteFile(hello, []byte("one\ntwo\nhello through a terminal\nfour\n"), 0o644)
	e.model.Script(
		e.readTurn(),
		modeltest.Turn{Text: "It says **hello through a terminal**.\n\nShall I capitalize `hello`?\n- yes\n- no\n"},
		modeltest.Turn{Text: "Capitalizing.", ToolCalls: []modeltest.ToolCall{{ID: "call_edit", Name: "edit_file",
			Input: `{"path":"hello.txt","old_text":"hello through","new_text":"Hello through"}`}}},
		modeltest.Turn{Text: "Done: line 3 now starts with Hello."},
		modeltest.Turn{Text: "Working on a long answer", Hang: true},
		modeltest.Turn{Text: "I capitalized hello on line 3."},
	)
	term := onTerminal(t, e, "chat", 160, 60)
	term.wait("/help for commands", true)

	// Turn 1: the MCP call's card, in place.
	term.keys("-l", "what does hello.txt say?")
	term.keys("Enter")
	screen := term.wait("deny:", true)
	for _, want := range []string{"Call fs · read_text_file?", hello, "[a] Always allow fs__read_text_file"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the card lacks %q:\n%s", want, screen)
		}
	}
	term.keys("y", "Enter")
	term.wait("Shall I capitalize hello?", true)
	screen = term.wait(" · session ", true)
	// The answer as Markdown: bold and code marks gone, bullets drawn.
	for _, want := range []string{"It says hello through a terminal.", "Shall I capitalize hello?", "• yes", "→ fs · read_text_file", "✓ completed: one"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the first turn lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "**hello") {
		t.Errorf("the answer's Markdown was not rendered:\n%s", screen)
	}

	// The arrow keys bring back the first prompt; Ctrl-U clears it.
	term.keys("Up")
	term.wait("› what does hello.txt say?", false)
	term.keys("C-u")

	// Turn 2: a follow-up that refers to the first answer, and an edit.
	term.keys("-l", "yes, do what you offered")
	term.keys("Enter")
	screen = term.wait("[y] allow once  [d] Always deny", true)
	for _, want := range []string{"Edit " + hello + "?", "@@ -1,4 +1,4 @@", "3   -hello through a terminal", "  3 +Hello through a terminal", "1 1  one"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the edit card lacks %q (a unified diff with line numbers and context):\n%s", want, screen)
		}
	}
	// A key the card does not list asks again.
	term.keys("x", "Enter")
	term.wait("is not one of the answers", true)
	term.keys("y", "Enter")
	term.wait("Done: line 3 now starts with Hello.", true)
	if b, _ := os.ReadFile(hello); string(b) != "one\ntwo\nHello through a terminal\nfour\n" {
		t.Errorf("after the approved edit the file is %q", b)
	}
	reqs := e.model.Requests()
	if n := len(reqs); n != 4 {
		t.Fatalf("%d model requests after two turns, want 4", n)
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "Shall I capitalize") || !strings.Contains(body, "yes, do what you offered") {
		t.Errorf("the follow-up's request does not carry the first answer and the follow-up:\n%s", body)
	}

	// Turn 3: Ctrl-C cancels it while it streams; the chat goes on.
	term.keys("-l", "write something long")
	term.keys("Enter")
	term.wait("› write something long\nWorking", true)
	term.keys("C-c")
	term.wait("cancelled: what streamed is kept in the session", true)
	// Ctrl-D at the empty prompt ends the chat.
	term.keys("C-d")
	term.exitsWith0()

	// Reopened: the conversation is shown, and a new turn carries it all.
	term = onTerminal(t, e, "chat --continue", 160, 60)
	screen = term.wait("resumed: what you type continues it", true)
	for _, want := range []string{"› what does hello.txt say?", "› yes, do what you offered", "Done: line 3 now starts with Hello."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the reopened chat does not show %q:\n%s", want, screen)
		}
	}
	term.keys("-l", "what did you change?")
	term.keys("Enter")
	term.wait("I capitalized hello on line 3.", true)
	reqs = e.model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"what does hello.txt say?", "Done: line 3 now starts with Hello.", "write something long", "Working", "what did you change?"} {
		if !strings.Contains(last, want) {
			t.Errorf("the reopened session's request lacks %q", want)
		}
	}
	term.keys("C-c")
	term.wait("Ctrl-C again", false)
	term.keys("C-c")
	term.exitsWith0()
}

// TestChatRewind is /rewind in `agentls chat` on a real terminal: after
// two turns that changed hello.txt (each card allowed in place), /rewind
// lists the turns with their prompts and files, choosing turn 2 puts the
// file back as turn 1 left it, and the next prompt continues from there.
func TestChatRewind(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	hello := filepath.Join(e.ws, "hello.txt")
	os.WriteFile(hello, []byte("hello\n"), 0o644)
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"hello.txt","old_text":"hello","new_text":"hello one"}`}}},
		modeltest.Turn{Text: "First edit done."},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e2", Name: "edit_file", Input: `{"path":"hello.txt","old_text":"one","new_text":"two"}`}}},
		modeltest.Turn{Text: "Second edit done."},
		modeltest.Turn{Text: "Back from before the second."},
	)
	term := onTerminal(t, e, "chat", 160, 60)
	term.wait("/help for commands", true)
	for i, prompt := range []string{"first edit please", "second edit please"} {
		term.keys("-l", prompt)
		term.keys("Enter")
		term.wait("[d] Always deny in this workspace: never write hello.txt (refused without asking)  [N] deny:", false)
		term.keys("y", "Enter")
		term.wait([]string{"First edit done.", "Second edit done."}[i], true)
	}
	if b, _ := os.ReadFile(hello); string(b) != "hello two\n" {
		t.Fatalf("after two turns hello.txt is %q", b)
	}
	term.keys("-l", "/rewind")
	term.keys("Enter")
	screen := term.wait("go back to before which turn", true)
	for _, want := range []string{"1  first edit please  (1 file(s))", "2  second edit please  (1 file(s))"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/rewind's list lacks %q:\n%s", want, screen)
		}
	}
	term.keys("2", "Enter")
	screen = term.wait("continues from before turn 2", true)
	if !strings.Contains(screen, "rewound to before turn 2: 1 file(s) restored") || !strings.Contains(screen, "restored "+hello) {
		t.Errorf("/rewind does not say what it restored:\n%s", screen)
	}
	if b, _ := os.ReadFile(hello); string(b) != "hello one\n" {
		t.Errorf("after /rewind 2 hello.txt is %q, want turn 1's", b)
	}
	term.keys("-l", "and now?")
	term.keys("Enter")
	term.wait("Back from before the second.", true)
	reqs := e.model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "first edit please") || strings.Contains(last, "second edit please") {
		t.Errorf("the prompt after /rewind carries the forked-away turn:\n%s", last)
	}
	term.keys("C-d")
	term.exitsWith0()
}

// TestChatRunsMCPPromptsAsSlashCommands: in `agentls chat` on a real
// terminal, the real server-everything's prompts are / commands: /help
// lists them with their arguments once the server is connected, one
// missing its required argument says what it takes without a turn, and
// one with its arguments runs after its prompts/get card (allowed in
// place), the model getting the prompt's message as the user's turn; a
// plain follow-up continues the same session.
func TestChatRunsMCPPromptsAsSlashCommands(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	everything := testenv.NodeBin(t, "mcp-server-everything")
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\"]\n", everything)
	f.Close()
	e.model.Script(modeltest.Turn{Text: "Lyon: sunny."}, modeltest.Turn{Text: "Tomorrow too."})
	term := onTerminal(t, e, "chat", 160, 60)
	term.wait("/help for commands", true)
	// The servers connect in the background: /mcp until it says so.
	for deadline := time.Now().Add(90 * time.Second); ; {
		term.keys("-l", "/mcp")
		term.keys("Enter")
		time.Sleep(300 * time.Millisecond)
		if regexp.MustCompile(`everything\s+connected`).MatchString(term.tm("capture-pane", "-p", "-t", "run")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not connect:\n%s", term.tm("capture-pane", "-p", "-t", "run"))
		}
	}
	term.keys("C-l")
	term.keys("-l", "/help")
	term.keys("Enter")
	screen := term.wait("/everything.simple-prompt", true)
	for _, want := range []string{"/everything.args-prompt city=... [state=...]", "MCP prompt of everything: Arguments Prompt"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/help lacks %q:\n%s", want, screen)
		}
	}
	term.keys("-l", "/everything.args-prompt")
	term.keys("Enter")
	term.wait("agentls: the prompt args-prompt of everything needs city: give city=... [state=...]", true)

	term.keys("-l", `/everything.args-prompt city=Lyon state="Auvergne Rhône"`)
	term.keys("Enter")
	term.wait("deny:", false)
	term.keys("y", "Enter")
	term.wait("Lyon: sunny.", true)
	term.keys("-l", "and tomorrow?")
	term.keys("Enter")
	term.wait("Tomorrow too.", true)
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (the prompt missing its argument runs no turn)", len(reqs))
	}
	if got := reqs[0].LastUserText(); got != "What's weather in Lyon, Auvergne Rhône?" {
		t.Errorf("the prompt's turn sent %q, want the prompt's message", got)
	}
	if body := string(reqs[1].Body); !strings.Contains(body, "What's weather in Lyon") || !strings.Contains(body, "Lyon: sunny.") {
		t.Errorf("the follow-up is not in the prompt's session:\n%s", body)
	}
	term.keys("C-d")
	term.exitsWith0()
}

// TestChatResumePicker is the chat's resume picker on a real terminal: a
// turn, /new and a turn in the new session; /resume without an argument
// lists the sessions (the current one starred) and asks which; the number
// of the first brings its conversation back, and the next turn is sent
// the first session's history, not the second's.
func TestChatResumePicker(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	e.model.Script(
		modeltest.Turn{Text: "The first answer."},
		modeltest.Turn{Text: "The second answer."},
		modeltest.Turn{Text: "Back in the first."},
	)
	term := onTerminal(t, e, "chat", 160, 60)
	term.wait("/help for commands", true)
	term.keys("-l", "first question")
	term.keys("Enter")
	term.wait("The first answer.", true)
	term.wait(" · session ", true)
	term.keys("-l", "/new")
	term.keys("Enter")
	term.keys("-l", "second question")
	term.keys("Enter")
	term.wait("The second answer.", true)

	term.keys("-l", "/resume")
	term.keys("Enter")
	screen := term.wait("resume which (number, Enter for none)?", true)
	list := regexp.MustCompile(`(?m)^([ *])\s+(\d)  \S+  [0-9-]+ [0-9:]+  1 turn\(s\)  (first|second) question$`).FindAllStringSubmatch(screen, -1)
	if len(list) != 2 || list[0][1] != "*" || list[0][3] != "second" || list[1][1] != " " || list[1][3] != "first" {
		t.Fatalf("the picker's list %q, want the second session (current, starred) then the first:\n%s", list, screen)
	}
	term.keys("-l", list[1][2])
	term.keys("Enter")
	screen = term.wait("resumed: what you type continues it", true)
	after := screen[strings.LastIndex(screen, "resume which"):]
	if !strings.Contains(after, "› first question") || !strings.Contains(after, "The first answer.") || strings.Contains(after, "The second answer.") {
		t.Errorf("the resumed session's conversation is not the first's:\n%s", after)
	}
	term.keys("-l", "and then?")
	term.keys("Enter")
	term.wait("Back in the first.", true)
	reqs := e.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if last := string(reqs[2].Body); !strings.Contains(last, "The first answer.") || strings.Contains(last, "The second answer.") {
		t.Errorf("the turn after /resume was not sent the first session's history alone:\n%s", last)
	}
	term.keys("C-d")
	term.exitsWith0()
}
