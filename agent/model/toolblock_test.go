package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// benchTools is n tools shaped like the fault server's (a name, a short
// description, a schema of a few properties).
func benchTools(n int) []ToolDef {
	tools := make([]ToolDef, n)
	for i := range tools {
		tools[i] = ToolDef{
			Name:        fmt.Sprintf("s%03d__tool_%d", i/11, i%11),
			Description: fmt.Sprintf("[s%03d] Echoes its input back, <unchanged> & quickly.", i/11),
			Schema:      json.RawMessage(fmt.Sprintf(`{"type":"object", "properties":{"text":{"type":"string","description":"what to echo"},"n%d":{"type":"integer","minimum":0}},"required":["text"]}`, i)),
		}
	}
	return tools
}

// marshalBody is the request body as one json.Marshal of the whole
// request writes it: what the wire carried before the tools block was
// cached, and must carry still, byte for byte.
func marshalBody(t testing.TB, p Provider, req Request) []byte {
	var v any
	switch p := p.(type) {
	case *openai:
		r := p.request(req)
		r.Tools = openaiTools(p.toolRules(req.Model).TranslateAll(req.Tools))
		v = r
	case *anthropic:
		r := p.request(req)
		r.Tools = anthropicTools(AnthropicToolRules.TranslateAll(req.Tools))
		v = r
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func bodyOf(p Provider) func(Request) ([]byte, error) {
	if o, ok := p.(*openai); ok {
		return o.body
	}
	return p.(*anthropic).body
}

func testClients() []Provider {
	return []Provider{
		newAnthropic(DefaultAnthropicURL, "claude-sonnet-4-5", "k", "ANTHROPIC_API_KEY", 8192, nil),
		newOpenAI("http://127.0.0.1:11434/v1", "qwen2.5-coder", "", "", 8192, nil),
		newOpenAI(DefaultOpenAIURL, "gpt-4.1", "k", "OPENAI_API_KEY", 8192, nil),
	}
}

// checkBody sends req through p's body and wants exactly marshalBody's bytes.
func checkBody(t *testing.T, p Provider, req Request, step string) {
	t.Helper()
	got, err := bodyOf(p)(req)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	if want := marshalBody(t, p, req); !bytes.Equal(got, want) {
		t.Fatalf("%s: body differs from one json.Marshal of the request:\n got %s\nwant %s", step, got, want)
	}
}

func TestCachedToolsBlockIsNeverStale(t *testing.T) {
	for _, p := range testClients() {
		t.Run(p.Name(), func(t *testing.T) {
			req := conversation()
			req.Tools = benchTools(30)
			checkBody(t, p, req, "first request")
			checkBody(t, p, req, "same set again")
			req.Tools = append(req.Tools, ToolDef{Name: "extra", Schema: json.RawMessage(`{"type":"object"}`)})
			checkBody(t, p, req, "a tool added (same backing array)")
			req.Tools = req.Tools[:10]
			checkBody(t, p, req, "tools removed (same first element)")
			req.Tools[3].Name = "renamed"
			checkBody(t, p, req, "a name changed in place")
			req.Tools[4].Description = "new words"
			checkBody(t, p, req, "a description changed in place")
			req.Tools[5].Schema[bytes.Index(req.Tools[5].Schema, []byte(`"minimum":0`))+len(`"minimum":`)] = '7'
			checkBody(t, p, req, "schema bytes rewritten in place, same length")
			req.Tools[6].Schema = nil
			checkBody(t, p, req, "a schema dropped")
			req.Tools = benchTools(10)
			checkBody(t, p, req, "a new slice with other content")
			req.Tools = nil
			checkBody(t, p, req, "no tools")
			if got, _ := bodyOf(p)(req); bytes.Contains(got, []byte(`"tools"`)) {
				t.Fatalf("no tools, yet the body has a tools key: %s", got)
			}
			req.Tools = benchTools(10)
			checkBody(t, p, req, "tools again after none")
		})
	}
}

func TestCachedToolsBlockStillRefusesBadNames(t *testing.T) {
	for _, p := range testClients() {
		t.Run(p.Name(), func(t *testing.T) {
			req := conversation()
			req.Tools = benchTools(5)
			checkBody(t, p, req, "valid set")
			req.Tools[2].Name = "bad name"
			if _, err := bodyOf(p)(req); err == nil || !strings.Contains(err.Error(), `"bad name" is not allowed`) {
				t.Fatalf("a name made illegal after a cached request: err = %v, want it refused", err)
			}
			req.Tools[2].Name = req.Tools[1].Name
			if _, err := bodyOf(p)(req); err == nil || !strings.Contains(err.Error(), "offered twice") {
				t.Fatalf("a duplicate name after a cached request: err = %v, want it refused", err)
			}
			req.Tools = benchTools(5)
			checkBody(t, p, req, "valid set after refusals")
		})
	}
}

// Several tasks share one provider; run with -race.
func TestCachedToolsBlockConcurrentSets(t *testing.T) {
	for _, p := range testClients() {
		t.Run(p.Name(), func(t *testing.T) {
			sets := [][]ToolDef{benchTools(3), benchTools(7), benchTools(12)}
			want := make([][]byte, len(sets))
			for i, s := range sets {
				req := conversation()
				req.Tools = s
				want[i] = marshalBody(t, p, req)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 6*50)
			for g := 0; g < 6; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 50; i++ {
						k := (g + i) % len(sets)
						req := conversation()
						req.Tools = sets[k]
						got, err := bodyOf(p)(req)
						if err == nil && !bytes.Equal(got, want[k]) {
							err = fmt.Errorf("set %d: body differs: %s", k, got)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkBody is one request body with 1209 tools offered (figure 4 at
// 100 servers), the same set each time as the agent sends it.
func BenchmarkBody(b *testing.B) {
	for _, p := range testClients()[:2] {
		b.Run(p.Name(), func(b *testing.B) {
			req := conversation()
			req.Tools = benchTools(1209)
			body := bodyOf(p)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := body(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The server gets one plain body of the declared length, byte for byte the
// request JSON with the cached tools block spliced in.
func TestStreamSendsTheWholeBodyWithItsLength(t *testing.T) {
	type got struct {
		length   int64
		encoding []string
		body     []byte
	}
	seen := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		seen <- got{r.ContentLength, r.TransferEncoding, raw}
		http.Error(w, `{"error":{"message":"no"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	req := conversation()
	req.Tools = benchTools(50)
	for _, p := range []Provider{newAnthropic(srv.URL, "m", "k", "", 100, srv.Client()), newOpenAI(srv.URL+"/v1", "m", "", "", 100, srv.Client())} {
		t.Run(p.Name(), func(t *testing.T) {
			if _, err := p.Stream(context.Background(), req, nil); err == nil {
				t.Fatal("the server answered 400, yet Stream did not fail")
			}
			g := <-seen
			want := marshalBody(t, p, req)
			if !bytes.Equal(g.body, want) {
				t.Fatalf("server got a body other than the request JSON:\n got %s\nwant %s", g.body, want)
			}
			if g.length != int64(len(want)) || len(g.encoding) != 0 {
				t.Fatalf("Content-Length %d, Transfer-Encoding %v: want %d and none", g.length, g.encoding, len(want))
			}
		})
	}
}

// BenchmarkBodyHistory is one request body late in a 40-turn task (a
// tool call and a 1 KB result per turn) with 16 tools offered: the
// history, not the tools, is what each request encodes anew.
func BenchmarkBodyHistory(b *testing.B) {
	for _, p := range testClients()[:2] {
		b.Run(p.Name(), func(b *testing.B) {
			req := conversation()
			req.Tools = benchTools(16)
			req.Messages = req.Messages[:1]
			for i := 0; i < 40; i++ {
				id := fmt.Sprintf("toolu_%d", i)
				req.Messages = append(req.Messages,
					Message{Role: "assistant", Content: []Block{{Type: "tool_use", ID: id, Name: "fs__read_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"file%d.go"}`, i))}}},
					Message{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: id, Content: strings.Repeat("line of a file\n", 70)}}})
			}
			body := bodyOf(p)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := body(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
