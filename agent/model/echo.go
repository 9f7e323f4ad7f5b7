package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
)

// What an OpenAI-compatible endpoint attaches to an answer goes back to it
// in the next request, as it came: DeepSeek's thinking mode refuses a tool
// call message without its reasoning_content ("The reasoning_content in the
// thinking mode must be passed back to the API"), Gemini 3 a tool call
// without its extra_content.google.thought_signature ("Function call is
// missing a thought_signature"). Other endpoints never see it (Block.Endpoint),
// and an endpoint that refuses a field it sent (Groq answers "property
// 'reasoning' is unsupported" to its own reasoning) is asked again without
// it, once, and never sent it again.

// echoFields are the fields echoes may send back.
var echoFields = []string{"reasoning_content", "reasoning_details", "reasoning", "extra_content"}

// echoes remembers which of echoFields an endpoint refused.
type echoes struct {
	mu      sync.Mutex
	refuses map[string]bool
}

// sends reports whether field may go to the endpoint.
func (e *echoes) sends(field string) bool {
	if field == "" {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.refuses[field]
}

// refused reports whether err is the endpoint refusing a field body echoed
// back to it; the field is then never sent again, and the caller asks once
// more without it.
func (e *echoes) refused(err error, body []byte) bool {
	var api *APIError
	if !errors.As(err, &api) || api.Status != 400 && api.Status != 422 {
		return false
	}
	msg := strings.ToLower(api.Message)
	if !refusesAField(msg) {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range echoFields {
		if !e.refuses[f] && bytes.Contains(body, []byte(`"`+f+`":`)) && hasWord(msg, f) {
			if e.refuses == nil {
				e.refuses = map[string]bool{}
			}
			e.refuses[f] = true
			return true
		}
	}
	return false
}

// refusesAField recognizes the ways servers refuse a field they do not know
// (Groq "property 'x' is unsupported", pydantic's "Extra inputs are not
// permitted", JSON schema's "Additional properties are not allowed ('x'
// was unexpected)", "Unrecognized request argument supplied: x").
func refusesAField(lower string) bool {
	for _, p := range []string{"unsupported", "not supported", "unexpected", "not permitted", "unrecognized", "unknown field", "unknown name", "not allowed"} {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// hasWord reports whether s contains w with no letter, digit or underscore
// on either side ("reasoning" is not in "reasoning_content").
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !wordByte(s[j-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// reasoningEcho gathers an assistant message's reasoning by the field it
// came in.
type reasoningEcho struct {
	content, reasoning []string
	details            []json.RawMessage // OpenRouter's reasoning_details, each block's array
}

// add takes a thinking block's reasoning, each part only where the
// endpoint has not refused its field.
func (r *reasoningEcho) add(b Block, e *echoes) {
	if len(b.Extra) > 0 && e.sends("reasoning_details") {
		r.details = append(r.details, b.Extra)
	}
	if !e.sends(b.Field) {
		return
	}
	switch b.Field {
	case "reasoning_content":
		r.content = append(r.content, b.Thinking)
	case "reasoning":
		r.reasoning = append(r.reasoning, b.Thinking)
	}
}

// detailsField is the message's reasoning_details: every block's, in one array.
func (r *reasoningEcho) detailsField() json.RawMessage {
	var all []json.RawMessage
	for _, d := range r.details {
		var parts []json.RawMessage
		if json.Unmarshal(d, &parts) == nil {
			all = append(all, parts...)
		}
	}
	if len(all) == 0 {
		return nil
	}
	b, _ := json.Marshal(all)
	return b
}

// fields are the message's reasoning_content and reasoning values (nil:
// the field is left out).
func (r *reasoningEcho) fields() (content, reasoning *string) {
	join := func(parts []string) *string {
		if len(parts) == 0 {
			return nil
		}
		s := strings.Join(parts, "")
		return &s
	}
	return join(r.content), join(r.reasoning)
}

// googleSignature is a tool call's extra_content carrying a thought signature.
func googleSignature(sig string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"google": map[string]any{"thought_signature": sig}})
	return b
}
