package model

import (
	"bytes"
	"encoding/json"
	"sync"
)

// toolBlock keeps a provider's "tools" array, checked and encoded, for the
// last tool set it was asked to send. The agent offers the same tools on
// every turn (with 100 MCP servers connected, 1209 of them), and encoding
// them again each time (json.Marshal re-validates and compacts every schema)
// was most of the agent's own cost per turn.
type toolBlock struct {
	mu    sync.Mutex
	rules string    // the ToolRules family the block was translated by
	defs  []ToolDef // a deep copy of the set last encoded
	block []byte    // its checked, encoded JSON array; never written once set
}

// get returns the encoded tools array for tools, translated by rules, or
// nil for none. It checks, translates and encodes a set that differs in any
// byte from the last one: the cache is keyed by the set's full content,
// compared against a private copy, so a set replaced or mutated in place
// between requests is never sent stale.
func (c *toolBlock) get(tools []ToolDef, rules ToolRules, check func([]ToolDef) error, encode func([]ToolDef) ([]byte, error)) ([]byte, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.block != nil && c.rules == rules.Family && sameDefs(c.defs, tools) {
		return c.block, nil
	}
	if err := check(tools); err != nil {
		return nil, err
	}
	block, err := encode(rules.TranslateAll(tools))
	if err != nil {
		return nil, err
	}
	c.rules, c.defs, c.block = rules.Family, copyDefs(tools), block
	return block, nil
}

func sameDefs(a, b []ToolDef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Schema, b[i].Schema) {
			return false
		}
	}
	return true
}

// copyDefs copies every schema into one private buffer, so a caller that
// later rewrites a schema's bytes in place is seen as a new set. (Strings
// are immutable and need no copy.)
func copyDefs(tools []ToolDef) []ToolDef {
	n := 0
	for _, t := range tools {
		n += len(t.Schema)
	}
	buf := make([]byte, 0, n)
	out := make([]ToolDef, len(tools))
	for i, t := range tools {
		start := len(buf)
		buf = append(buf, t.Schema...)
		out[i] = ToolDef{Name: t.Name, Description: t.Description, Schema: buf[start:len(buf):len(buf)]}
	}
	return out
}

// bodyBuffers keep the encoded head of a request between requests: it
// holds the whole history, re-encoded on every turn, and json.Marshal
// returned it in a new slice that joinBody then copied once more.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// joinBody writes the request object: head's fields, then "tools" (when
// there are any), then tail's fields: the order of the one struct
// json.Marshal would write, without walking the tools block again. The
// head and tail are encoded as json.Marshal encodes them (an Encoder
// differs only by the newline it ends with) into a pooled buffer, and the
// body is the one slice the three parts are copied into.
func joinBody(head any, tools []byte, tail any) ([]byte, error) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 4<<20 { // one huge history does not stay pinned
			buf.Reset()
			bodyBuffers.Put(buf)
		}
	}()
	buf.Reset()
	enc := json.NewEncoder(buf)
	if err := enc.Encode(head); err != nil {
		return nil, err
	}
	hn := buf.Len() - 1 // without the newline
	if err := enc.Encode(tail); err != nil {
		return nil, err
	}
	all := buf.Bytes()
	h, t := all[:hn], all[hn+1:len(all)-1]
	out := make([]byte, 0, len(h)+len(`,"tools":`)+len(tools)+len(t))
	out = append(out, h[:len(h)-1]...) // head is an object with fields: drop its '}'
	if tools != nil {
		out = append(out, `,"tools":`...)
		out = append(out, tools...)
	}
	if len(t) > 2 { // tail has fields: drop its '{'
		out = append(out, ',')
		out = append(out, t[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}
