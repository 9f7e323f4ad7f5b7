package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// schema builds a JSON Schema object from property lines.
func schema(required []string, props map[string]string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", k, props[k])
	}
	b.WriteString(`},"required":[`)
	for i, r := range required {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", r)
	}
	b.WriteString(`],"additionalProperties":false}`)
	return json.RawMessage(b.String())
}

func str(desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"string","description":` + string(d) + `}`
}

func integer(desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"integer","description":` + string(d) + `}`
}

func boolean(desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"boolean","description":` + string(d) + `}`
}

// ExpectedArgs says in one line what a tool's input schema asks for, for an
// error the model reads when its arguments were not a JSON object. Property
// names come from the schema the model was already offered; the line is
// capped so a server's huge schema cannot flood the result.
func ExpectedArgs(tool string, schema json.RawMessage) string {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s) // an unreadable schema reads as "no fields"
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var optional []string
	for p := range s.Properties {
		if !required[p] {
			optional = append(optional, p)
		}
	}
	sort.Strings(optional)
	req := append([]string(nil), s.Required...)
	sort.Strings(req)
	quote := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = fmt.Sprintf("%q", n)
		}
		return strings.Join(q, ", ")
	}
	line := tool + " expects a JSON object with "
	if len(req) == 0 {
		line += "no required fields"
	} else {
		line += "required fields: " + quote(req)
	}
	if len(optional) > 0 {
		line += "; optional: " + quote(optional)
	}
	return capText(line, 1000)
}
