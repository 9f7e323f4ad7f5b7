package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// asked records the questions a call's listener was asked and answers
// each with answer.
type asked struct {
	mu     sync.Mutex
	got    []Elicitation
	answer func(Elicitation) ElicitAnswer
}

func (a *asked) listener() CallListener {
	return CallListener{Elicit: func(_ context.Context, e Elicitation) ElicitAnswer {
		a.mu.Lock()
		a.got = append(a.got, e)
		a.mu.Unlock()
		return a.answer(e)
	}}
}

func (a *asked) questions() []Elicitation {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Elicitation(nil), a.got...)
}

func callListening(t *testing.T, r *Registry, l CallListener, name, args string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return r.Call(WithListener(ctx, l), name, []byte(args))
}

// TestElicitationAgainstTheReferenceServer drives server-everything's
// elicitation tools over Streamable HTTP: agentls announces both modes
// (the server registers its elicitation tools only then), a form reaches
// the call's listener with its fields read from the schema and the
// listener's answer reaches the server; a URL question carries its URL; a
// call with no listener that can ask, and a decline, are declined.
func TestElicitationAgainstTheReferenceServer(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	r := startRegistry(t, []config.Server{remoteServer("ev", everything.URL, nil)}, Options{})
	info := serverInfo(t, r, "ev")
	if info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}
	var names []string
	for _, tool := range info.Tools {
		names = append(names, tool.ServerTool)
	}
	for _, want := range []string{"trigger-elicitation-request", "trigger-url-elicitation"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("the server registered no %s (it does only for a client announcing elicitation); tools: %v", want, names)
		}
	}

	form := &asked{answer: func(Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7}}
	}}
	res := callListening(t, r, form.listener(), "ev__trigger-elicitation-request", `{}`)
	if res.IsError || !strings.Contains(res.Text, "- Name: Ada Lovelace") || !strings.Contains(res.Text, "- Favorite Integer: 7") {
		t.Fatalf("accepted form: %+v", res)
	}
	qs := form.questions()
	if len(qs) != 1 {
		t.Fatalf("%d questions, want 1", len(qs))
	}
	q := qs[0]
	if q.Server != "ev" || q.Mode != wire.ElicitForm || q.Message != "Please provide inputs for the following fields:" {
		t.Errorf("question: %+v", q)
	}
	fields := map[string]wire.ElicitField{}
	for _, f := range q.Fields {
		fields[f.Name] = f
	}
	if q.Fields[0].Name != "name" || !q.Fields[0].Required || q.Fields[0].Type != "string" {
		t.Errorf("the required field comes first: %+v", q.Fields[0])
	}
	if f := fields["integer"]; f.Type != "integer" || string(f.Default) != "42" || f.Minimum == nil || *f.Minimum != 1 {
		t.Errorf("integer: %+v", f)
	}
	if f := fields["legacyTitledEnum"]; len(f.Choices) != 5 || f.Choices[1] != (wire.ElicitChoice{Value: "pet-2", Title: "Dogs"}) {
		t.Errorf("legacy titled enum: %+v", f)
	}
	if f := fields["titledSingleSelectEnum"]; len(f.Choices) != 3 || f.Choices[0] != (wire.ElicitChoice{Value: "hero-1", Title: "Superman"}) {
		t.Errorf("titled enum: %+v", f)
	}
	if f := fields["untitledMultipleSelectEnum"]; f.Type != "array" || len(f.Choices) != 5 || string(f.Default) != `["Guitar"]` {
		t.Errorf("multi-select: %+v", f)
	}
	if f := fields["email"]; f.Format != "email" {
		t.Errorf("email: %+v", f)
	}

	decline := &asked{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: wire.ElicitDecline} }}
	mustContain(t, callListening(t, r, decline.listener(), "ev__trigger-elicitation-request", `{}`), "User declined")
	// No listener that can ask: declined, never accepted.
	mustContain(t, callListening(t, r, CallListener{}, "ev__trigger-elicitation-request", `{}`), "User declined")

	open := &asked{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: wire.ElicitAccept} }}
	args, _ := json.Marshal(map[string]string{"url": "http://127.0.0.1:1/consent?x=1", "message": "Sign the form", "elicitationId": "e-1"})
	mustContain(t, callListening(t, r, open.listener(), "ev__trigger-url-elicitation", string(args)), "User completed the URL elicitation flow")
	if qs := open.questions(); len(qs) != 1 || qs[0].Mode != wire.ElicitURL || qs[0].URL != "http://127.0.0.1:1/consent?x=1" ||
		qs[0].ID != "e-1" || qs[0].Message != "Sign the form" || len(qs[0].Fields) != 0 {
		t.Errorf("URL question: %+v", qs)
	}
}

// TestElicitationPausesTheCallTimeout: the user's time to answer does not
// count against call_timeout; the call's own time still does.
func TestElicitationPausesTheCallTimeout(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	srv := remoteServer("ev", everything.URL, nil)
	srv.CallTimeout = 1 * time.Second
	r := startRegistry(t, []config.Server{srv}, Options{})
	slow := &asked{answer: func(Elicitation) ElicitAnswer {
		time.Sleep(2 * time.Second)
		return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{"name": "Slow"}}
	}}
	mustContain(t, callListening(t, r, slow.listener(), "ev__trigger-elicitation-request", `{}`), "- Name: Slow")
	res := call(t, r, "ev__trigger-long-running-operation", `{"duration": 3, "steps": 3}`)
	if !res.IsError || !strings.Contains(res.Text, "did not answer within call_timeout (1s)") {
		t.Fatalf("a slow call: %+v", res)
	}
}

func mustContain(t *testing.T, res Result, want string) {
	t.Helper()
	if res.IsError || !strings.Contains(res.Text, want) {
		t.Fatalf("result %+v, want text containing %q", res, want)
	}
}

// TestFormFields reads the schemas servers send into fields, and refuses
// what is not a flat form.
func TestFormFields(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want, err string
	}{
		{"empty form", `{"type":"object","properties":{}}`, `[]`, ""},
		{"type of an enum defaults to string", `{"properties":{"c":{"enum":["a","b"]}}}`,
			`[{"name":"c","type":"string","choices":[{"value":"a"},{"value":"b"}]}]`, ""},
		{"required first, then by name", `{"properties":{"b":{"type":"boolean"},"a":{"type":"number","default":1.5},"z":{"type":"string"}},"required":["z"]}`,
			`[{"name":"z","type":"string","required":true},{"name":"a","type":"number","default":1.5},{"name":"b","type":"boolean"}]`, ""},
		{"a nested object is refused", `{"properties":{"o":{"type":"object"}}}`, "", `property "o" has type "object"`},
		{"an array without choices is refused", `{"properties":{"l":{"type":"array"}}}`, "", `property "l" is an array without enum items`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields, err := formFields(json.RawMessage(tc.schema))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(fields)
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestElicitationReachesTheCallThatAsked: two calls of the Go fault
// server (a 2026-07-28 server: its questions are input requests of each
// tools/call) ask at the same time; each question reaches its own call's
// listener, whose answer goes back to that call. (Routed by connection
// alone, both went to the oldest call and one call got the other's answer.)
func TestElicitationReachesTheCallThatAsked(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "q")}, Options{})
	var mu sync.Mutex
	asked := 0
	both := make(chan struct{})
	listener := func(color string) CallListener {
		return CallListener{Elicit: func(ctx context.Context, e Elicitation) ElicitAnswer {
			mu.Lock()
			asked++
			if asked == 2 {
				close(both)
			}
			mu.Unlock()
			select { // both calls are in flight before either answers
			case <-both:
			case <-ctx.Done():
			case <-time.After(20 * time.Second):
			}
			return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{"color": color}}
		}}
	}
	const form = `{"message":"Pick","schema":{"type":"object","properties":{"color":{"type":"string"}}}}`
	results := make([]Result, 2)
	var wg sync.WaitGroup
	for i, color := range []string{"red", "green"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = callListening(t, r, listener(color), "q__ask", form)
		}()
	}
	wg.Wait()
	for i, color := range []string{"red", "green"} {
		if want := `{"action":"accept","content":{"color":"` + color + `"}}`; results[i].Text != want {
			t.Errorf("call %d got %q, want %s", i, results[i].Text, want)
		}
	}
}

// TestURLElicitationRequiredOpensThePageThenRetries: a call the Go fault
// server refuses with URLElicitationRequired (-32042) puts the page to the
// user as a URL question; once opened and reported done by the server
// (notifications/elicitation/complete) the call is made again and answers.
// Declined, the call fails saying so, and the server is never asked again.
func TestURLElicitationRequiredOpensThePageThenRetries(t *testing.T) {
	const page = `{"message":"Sign in first","url":"https://127.0.0.1:9/signin","required":true}`
	declined := startRegistry(t, []config.Server{faultServer(t, "q")}, Options{})
	no := &asked{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: wire.ElicitDecline} }}
	res := callListening(t, declined, no.listener(), "q__ask", page)
	if !res.IsError || !strings.Contains(res.Text, "the tool needs a page opened first (127.0.0.1:9), and the user did not open it (decline)") {
		t.Fatalf("declined: %+v", res)
	}

	r := startRegistry(t, []config.Server{faultServer(t, "q")}, Options{})
	yes := &asked{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: wire.ElicitAccept} }}
	mustContain(t, callListening(t, r, yes.listener(), "q__ask", page), "done after the page")
	if qs := yes.questions(); len(qs) != 1 || qs[0].Mode != wire.ElicitURL || qs[0].URL != "https://127.0.0.1:9/signin" ||
		qs[0].ID != "page-1" || qs[0].Message != "Sign in first" || qs[0].Server != "q" {
		t.Errorf("questions %+v", qs)
	}
	// Without a listener that can ask, the server's refusal is the result.
	bare := startRegistry(t, []config.Server{faultServer(t, "q")}, Options{})
	if res := call(t, bare, "q__ask", page); !res.IsError || !strings.Contains(res.Text, "URL elicitation required") {
		t.Errorf("no listener: %+v", res)
	}
}

// TestAPromptsQuestionNeverReachesACall: while one of its tool calls is in
// flight (itself waiting on the user), the real faultserver's prompts/get
// asks a question of its own (a 2026-07-28 input request). Nobody can be
// asked for a prompt: its question is declined, and never put to the
// user as if the tool call had asked it.
func TestAPromptsQuestionNeverReachesACall(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "q", "-prompts-log", filepath.Join(t.TempDir(), "prompts.log"))}, Options{})
	var mu sync.Mutex
	var heard []string
	asking, promptDone := make(chan struct{}), make(chan struct{})
	var once sync.Once
	l := CallListener{Elicit: func(ctx context.Context, e Elicitation) ElicitAnswer {
		mu.Lock()
		heard = append(heard, e.Message)
		mu.Unlock()
		if e.Message != "Pick" {
			return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{}}
		}
		once.Do(func() { close(asking) })
		select { // the call stays in flight until the prompt is done
		case <-promptDone:
		case <-ctx.Done():
		case <-time.After(20 * time.Second):
		}
		return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{}}
	}}
	done := make(chan Result, 1)
	go func() {
		done <- callListening(t, r, l, "q__ask", `{"message":"Pick","schema":{"type":"object","properties":{}}}`)
	}()
	select {
	case <-asking:
	case <-time.After(20 * time.Second):
		t.Fatal("the call never asked")
	}
	text, err := r.GetPrompt(context.Background(), "q", "asking", nil)
	close(promptDone)
	<-done
	if err != nil || text != "answered decline" {
		t.Errorf("prompts/get = %q, %v; want its question declined", text, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 1 {
		t.Errorf("the tool call's listener heard %q; want only its own question", heard)
	}
}

// TestInputRequiredRoundsOfAV2Server drives a server on the official
// TypeScript SDK v2, which speaks 2026-07-28: its questions come as
// input-required results of the tools/call, not as elicitation/create.
// Each reaches the call's listener named by the server with its text as
// sent; the answer goes back in the retried call. A URL question, once
// opened, retries the call at once with the server's requestState:
// 2026-07-28 has no elicitation/complete to wait for (waiting, the call
// would have run into call_timeout). Declined, and with nobody to ask,
// the retried call carries a decline and no content.
func TestInputRequiredRoundsOfAV2Server(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests.log")
	r := startRegistry(t, []config.Server{v2Server(t, "v2", log)}, Options{})
	if info := serverInfo(t, r, "v2"); info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}
	form := &asked{answer: func(Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{"color": "teal"}}
	}}
	res := callListening(t, r, form.listener(), "v2__ask", `{"message":"Pick a <b>color</b>\u001b[2J"}`)
	if res.IsError || res.Text != `{"action":"accept","content":{"color":"teal"},"state":null}` {
		t.Fatalf("accepted form: %+v", res)
	}
	qs := form.questions()
	if len(qs) != 1 || qs[0].Server != "v2" || qs[0].Mode != wire.ElicitForm || qs[0].Message != "Pick a <b>color</b>\x1b[2J" ||
		len(qs[0].Fields) != 1 || qs[0].Fields[0].Name != "color" || !qs[0].Fields[0].Required {
		t.Fatalf("form question: %+v", qs)
	}

	no := &asked{answer: func(Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: wire.ElicitDecline, Content: map[string]any{"color": "leak"}}
	}}
	if res := callListening(t, r, no.listener(), "v2__ask", `{"message":"Pick"}`); res.Text != `{"action":"decline","content":null,"state":null}` {
		t.Errorf("declined: %+v", res)
	}
	if res := callListening(t, r, CallListener{}, "v2__ask", `{"message":"Pick"}`); res.Text != `{"action":"decline","content":null,"state":null}` {
		t.Errorf("nobody to ask: %+v", res)
	}

	open := &asked{answer: func(Elicitation) ElicitAnswer { return ElicitAnswer{Action: wire.ElicitAccept} }}
	res = callListening(t, r, open.listener(), "v2__ask", `{"message":"Sign in","url":"https://127.0.0.1:9/signin?s=1"}`)
	if res.IsError || res.Text != `{"action":"accept","content":null,"state":"page-1-asked"}` {
		t.Fatalf("opened page: %+v", res)
	}
	if qs := open.questions(); len(qs) != 1 || qs[0].Mode != wire.ElicitURL || qs[0].URL != "https://127.0.0.1:9/signin?s=1" ||
		qs[0].ID != "page-1" || qs[0].Message != "Sign in" || qs[0].Server != "v2" {
		t.Errorf("URL question: %+v", qs)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// Each of the four calls was made twice: asked, then retried with the answer.
	if n := strings.Count(string(b), "tools/call ask\n"); n != 8 {
		t.Errorf("the server got %d calls of ask, want 8:\n%s", n, b)
	}
}
