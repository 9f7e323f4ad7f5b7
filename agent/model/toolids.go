package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// A tool call's id is the provider's: one wire's ids need not be valid on
// the other's. A session switched between models (agent/setModel) sends
// ids it got from one provider to another, so each encoder writes them as
// its wire takes them: the Messages API wants ^[a-zA-Z0-9_-]+$, unique in
// the request (some chat completions servers number their calls call_0,
// call_1 afresh each answer); OpenAI takes at most 40 characters. An id
// its wire already takes is sent as it is; one it does not is rewritten
// the same way in its tool_use and in its tool_result.

// toolIDs rewrites one request's tool call ids for a wire.
type toolIDs struct {
	fit    func(string) string // an id the wire takes, for any id
	unique bool                // ids must be unique in the request
	used   map[string]bool
	cur    map[string]string // the last assistant message's ids: theirs → sent
}

func newToolIDs(fit func(string) string, unique bool) *toolIDs {
	return &toolIDs{fit: fit, unique: unique, used: map[string]bool{}, cur: map[string]string{}}
}

// turn starts an assistant message: its calls are what the next message's
// results answer.
func (t *toolIDs) turn() { t.cur = map[string]string{} }

// call is the id to send for a call of the current assistant message.
func (t *toolIDs) call(id string) string {
	out := t.fit(id)
	if t.unique {
		base := out
		for n := 2; t.used[out]; n++ {
			out = fmt.Sprintf("%s_%d", base, n)
		}
	}
	t.used[out] = true
	t.cur[id] = out
	return out
}

// result is the id to send for a result answering call id.
func (t *toolIDs) result(id string) string {
	if out, ok := t.cur[id]; ok {
		return out
	}
	return t.fit(id)
}

// anthropicID is id as the Messages API takes it: every other character
// an underscore ("" becomes "toolu_").
func anthropicID(id string) string {
	if id == "" {
		return "toolu_"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, id)
}

// openaiMaxID is the longest tool call id OpenAI takes.
const openaiMaxID = 40

// openaiID is id as OpenAI takes it: a longer one becomes call_ and a hash
// of it.
func openaiID(id string) string {
	if len(id) <= openaiMaxID {
		return id
	}
	h := sha256.Sum256([]byte(id))
	return "call_" + hex.EncodeToString(h[:])[:openaiMaxID-len("call_")]
}
