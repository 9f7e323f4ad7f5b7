package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/agent/model/providers"
)

// reqInfo is the little the server needs from a request body to answer.
type reqInfo struct {
	model  string
	stream bool
}

func parseBody(body []byte) (reqInfo, error) {
	var v struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	err := json.Unmarshal(body, &v)
	return reqInfo{model: v.Model, stream: v.Stream}, err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("modeltest: " + err.Error()) // only our own literal maps are marshalled
	}
	return b
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(v))
}

// errorTypeFor is the provider error type a status gets when the turn names none.
func errorTypeFor(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

func errorMessageFor(typ string) string {
	switch typ {
	case "overloaded_error":
		return "Overloaded"
	case "rate_limit_error":
		return "Rate limit exceeded"
	case "authentication_error":
		return "invalid x-api-key"
	case "permission_error":
		return "Your API key does not have permission to use the specified resource."
	case "not_found_error", "model_not_found":
		return "model: not found"
	case "invalid_request_error":
		return "Invalid request"
	}
	return "Internal server error"
}

// writeError answers with an HTTP error in the provider's documented shape:
// Anthropic {"type":"error","error":{"type","message"}}, OpenAI
// {"error":{"message","type","param","code"}}.
func (s *Server) writeError(w http.ResponseWriter, format providers.Wire, t Turn, msg string) {
	typ := t.ErrorType
	if typ == "" {
		typ = errorTypeFor(t.Status)
	}
	if msg == "" {
		msg = errorMessageFor(typ)
	}
	if t.RetryAfter != "" {
		w.Header().Set("Retry-After", t.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(t.Status)
	if format == providers.Messages {
		w.Write(mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}))
		return
	}
	w.Write(mustJSON(openaiError(typ, msg)))
}

func openaiError(typ, msg string) map[string]any {
	var code any
	if typ != "" {
		code = typ
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
}

// writeModels answers GET /v1/models in a shape both formats' clients read
// (a "data" list of models with ids).
func writeModels(w http.ResponseWriter) {
	writeJSON(w, map[string]any{
		"object": "list",
		"data": []any{map[string]any{
			"id": "fake-model", "object": "model", "created": 1700000000, "owned_by": "modeltest",
			"type": "model", "display_name": "Fake Model", "created_at": "2025-01-01T00:00:00Z",
		}},
		"has_more": false, "first_id": "fake-model", "last_id": "fake-model",
	})
}

// textDeltas splits text into several deltas (one per word, a lone word in
// two) so clients must concatenate them.
func textDeltas(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	start := 0
	for i, r := range s {
		if r == ' ' && i+1 < len(s) {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	out = append(out, s[start:])
	if len(out) == 1 {
		return splitRunes(s, 2)
	}
	return out
}

// splitRunes cuts s into n pieces on rune boundaries (fewer when s is short).
func splitRunes(s string, n int) []string {
	count := utf8.RuneCountInString(s)
	if count < n {
		n = count
	}
	if n <= 1 {
		return []string{s}
	}
	size := (count + n - 1) / n
	var out []string
	var cur strings.Builder
	k := 0
	for _, r := range s {
		cur.WriteRune(r)
		k++
		if k == size {
			out = append(out, cur.String())
			cur.Reset()
			k = 0
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// inputChunks splits a tool input into three pieces so that no single chunk
// is valid JSON on its own (for inputs long enough).
func inputChunks(s string) []string { return splitRunes(s, 3) }

func (a answer) errorMessage() string {
	if a.ErrorMessage != "" {
		return a.ErrorMessage
	}
	return errorMessageFor(a.ErrorType)
}
