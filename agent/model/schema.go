package model

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentls/agentls/agent/model/providers"
)

// ToolRules is what one family of providers accepts of a tool definition.
// MCP servers write their input schemas as JSON Schema of any draft
// ($schema, $ref and $defs, type lists, const, oneOf, formats), and each
// provider refuses a different part of it: one refused schema fails the
// whole request, and so every turn. Translate rewrites a definition into
// what the rules accept, keeping its meaning: references are inlined, a
// const becomes a one-value enum, a type list a nullable type, and what the
// provider cannot check is dropped from the schema and said in a
// description where the model needs to know it. The MCP server still
// checks the arguments against its own schema: they are never translated
// back, so a call carries the model's arguments as they came.
type ToolRules struct {
	// Family names the rules: "anthropic", "openai" or "gemini".
	Family string
	// MaxDescription is the longest tool description the provider takes,
	// in characters; 0: no limit.
	MaxDescription int

	rootProperties bool // the root object must list "properties", even none
	arrayItems     bool // every array schema must have "items"
	openAPI        bool // only Gemini's OpenAPI 3.0 subset (schema_gemini.go)
}

// The rules of each family, from the providers' documentation and the
// errors they answer.
var (
	// AnthropicToolRules: input_schema is JSON Schema whose root is
	// {"type": "object"}, with no oneOf, allOf or anyOf at the top level.
	AnthropicToolRules = ToolRules{Family: "anthropic"}
	// OpenAIToolRules: function parameters are a JSON Schema object that
	// lists its properties (even none: "object schema missing properties"),
	// every array has items ("array schema missing items"), and a
	// description is at most 1,024 characters. OpenAI-compatible servers
	// (Ollama, vLLM, llama.cpp, OpenRouter, DeepSeek, Groq, Mistral) take
	// what OpenAI takes.
	OpenAIToolRules = ToolRules{Family: "openai", MaxDescription: 1024, rootProperties: true, arrayItems: true}
	// GeminiToolRules: function parameters are Gemini's Schema, a subset of
	// OpenAPI 3.0 (schema_gemini.go says which), on Google's own API and on
	// its OpenAI-compatible endpoint alike.
	GeminiToolRules = ToolRules{Family: "gemini", openAPI: true}
)

// toolRulesFor picks the rules for a request to the provider desc for
// model: its descriptor's schema rules (providers.ToolSchemaFor, which
// also knows a Gemini model served elsewhere) on its wire.
func toolRulesFor(desc *providers.Provider, model string) ToolRules {
	switch {
	case desc != nil && desc.Wire == providers.Messages:
		return AnthropicToolRules
	case providers.ToolSchemaFor(desc, model) == providers.ToolOpenAPISubset:
		return GeminiToolRules
	}
	return OpenAIToolRules
}

// Translate returns d as the rules accept it: its schema translated (the
// server's bytes unchanged when they already comply) and its description
// cut to the provider's limit, keeping what the translation had to say
// about the schema as a whole.
func (r ToolRules) Translate(d ToolDef) ToolDef {
	schema, notes := r.schema(d.Schema)
	d.Schema = schema
	d.Description = r.description(d.Description, notes)
	return d
}

// TranslateAll translates every definition (a new slice; defs is not
// changed).
func (r ToolRules) TranslateAll(defs []ToolDef) []ToolDef {
	out := make([]ToolDef, len(defs))
	for i, d := range defs {
		out[i] = r.Translate(d)
	}
	return out
}

// description appends the notes and cuts the whole to MaxDescription,
// cutting the server's text rather than the notes.
func (r ToolRules) description(desc string, notes []string) string {
	note := ""
	if len(notes) > 0 {
		note = " (" + strings.Join(notes, "; ") + ")"
	}
	if r.MaxDescription > 0 {
		if room := r.MaxDescription - len([]rune(note)); room > 0 {
			desc = capChars(desc, room)
		} else {
			desc, note = capChars(desc+note, r.MaxDescription), ""
		}
	}
	return desc + note
}

// capChars cuts s to at most max characters, the last one "…" when cut.
func capChars(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	if max < 1 {
		return ""
	}
	return string(r[:max-1]) + "…"
}

// emptySchema is what a tool without a usable schema gets: no arguments.
func (r ToolRules) emptySchema() *jsonObject {
	o := newObject()
	o.set("type", "object")
	if r.rootProperties {
		o.set("properties", newObject())
	}
	return o
}

// schema translates one input schema, returning notes for the tool's
// description.
func (r ToolRules) schema(raw []byte) ([]byte, []string) {
	var root *jsonObject
	if len(bytes.TrimSpace(raw)) > 0 {
		if v, err := decodeJSON(raw); err == nil {
			root, _ = v.(*jsonObject)
		}
	}
	if root == nil {
		// Missing, null, or not an object: the tool takes no arguments the
		// model can be told about (the server will say what it wants).
		return encodeJSON(r.emptySchema()), nil
	}
	before := encodeJSON(root)
	out, notes := r.translateRoot(root.clone())
	after := encodeJSON(out)
	if bytes.Equal(before, after) {
		return raw, notes
	}
	return after, notes
}

// translateRoot makes the root an object schema (every provider wants one)
// and then applies the family's rules below it.
func (r ToolRules) translateRoot(root *jsonObject) (*jsonObject, []string) {
	refs := &refResolver{root: root}
	var notes []string
	// {"$ref": "#/$defs/Args", "$defs": {...}}: the root is its target.
	if ref := root.str("$ref"); ref != "" {
		if target, ok := refs.resolve(ref); ok {
			if t, ok := target.(*jsonObject); ok {
				merged := overlay(t.clone(), root, "$ref")
				root = merged
			}
		}
	}
	if !r.openAPI {
		root, notes = mergeRootCombinators(root, refs)
	}
	switch t := root.vals["type"].(type) {
	case nil:
		root.set("type", "object")
	case []any:
		if containsString(t, "object") {
			root.set("type", "object")
		}
	}
	if root.str("type") != "object" {
		// A root that is no object (a server's mistake) cannot be offered:
		// the tool is offered without arguments, and the server's own error
		// will tell the model what it wants.
		return r.emptySchema(), []string{fmt.Sprintf("its server's input schema is not an object (%s), so no arguments are described", typeWords(root))}
	}
	if r.openAPI {
		g := newGemini(refs)
		out, gnotes := g.root(root)
		return out, append(notes, gnotes...)
	}
	if r.rootProperties && !root.has("properties") {
		root.set("properties", newObject())
	}
	if r.arrayItems {
		addArrayItems(root)
	}
	return root, notes
}

// mergeRootCombinators turns a root allOf into one object and a root
// anyOf/oneOf of objects into one object that has every branch's
// properties and requires only what every branch requires; the note says
// which properties go together.
func mergeRootCombinators(root *jsonObject, refs *refResolver) (*jsonObject, []string) {
	var notes []string
	if all, ok := root.vals["allOf"].([]any); ok {
		root.del("allOf")
		for _, sub := range all {
			if s, ok := refs.deref(sub).(*jsonObject); ok {
				mergeInto(root, s)
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := root.vals[key].([]any)
		if !ok {
			continue
		}
		root.del(key)
		props := root.obj("properties")
		if props == nil {
			props = newObject()
		}
		var shapes []string
		var common map[string]bool
		for i, b := range branches {
			s, ok := refs.deref(b).(*jsonObject)
			if !ok {
				continue
			}
			var names []string
			if bp := s.obj("properties"); bp != nil {
				for _, k := range bp.keys {
					names = append(names, k)
					if !props.has(k) {
						props.set(k, cloneValue(bp.vals[k]))
					}
				}
			}
			req := map[string]bool{}
			for _, q := range stringList(s.vals["required"]) {
				req[q] = true
			}
			if i == 0 || common == nil {
				common = req
			} else {
				for q := range common {
					if !req[q] {
						delete(common, q)
					}
				}
			}
			shapes = append(shapes, "{"+strings.Join(names, ", ")+"}")
		}
		if len(props.keys) > 0 {
			root.set("properties", props)
		}
		required := stringList(root.vals["required"])
		for _, k := range props.keys {
			if common[k] && !containsStr(required, k) {
				required = append(required, k)
			}
		}
		if len(required) > 0 {
			root.set("required", toAnyList(required))
		}
		if len(shapes) > 1 {
			verb := "any"
			if key == "oneOf" {
				verb = "exactly one"
			}
			notes = append(notes, fmt.Sprintf("the arguments take %s of these shapes: %s", verb, strings.Join(shapes, " or ")))
		}
	}
	return root, notes
}

// addArrayItems gives every array schema that has none an "items" of any
// value, which is what a missing one means.
func addArrayItems(v any) {
	s, ok := v.(*jsonObject)
	if !ok {
		return
	}
	if isArrayType(s.vals["type"]) && !s.has("items") && !s.has("prefixItems") {
		s.set("items", newObject())
	}
	forEachSubschema(s, addArrayItems)
}

func isArrayType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "array"
	case []any:
		return containsString(t, "array")
	}
	return false
}

// forEachSubschema calls f on every schema directly inside s.
func forEachSubschema(s *jsonObject, f func(any)) {
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"} {
		if m := s.obj(k); m != nil {
			for _, name := range m.keys {
				f(m.vals[name])
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "additionalItems", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems"} {
		if v, ok := s.vals[k]; ok {
			if list, ok := v.([]any); ok {
				for _, e := range list {
					f(e)
				}
			} else {
				f(v)
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := s.vals[k].([]any); ok {
			for _, e := range list {
				f(e)
			}
		}
	}
}

// refResolver finds the target of a local "$ref" ("#", "#/$defs/Name",
// "#/definitions/Name", or any JSON pointer into the schema).
type refResolver struct{ root *jsonObject }

func (r *refResolver) resolve(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false // a remote schema is not fetched
	}
	var cur any = r.root
	ptr := strings.TrimPrefix(ref, "#")
	if ptr == "" {
		return cur, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor name
	}
	for _, part := range strings.Split(ptr[1:], "/") {
		if p, err := url.PathUnescape(part); err == nil {
			part = p
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *jsonObject:
			v, ok := c.vals[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(part, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// deref returns v with a top-level "$ref" replaced by its target (the
// sibling keywords laid over it), one level deep.
func (r *refResolver) deref(v any) any {
	s, ok := v.(*jsonObject)
	if !ok {
		return v
	}
	ref := s.str("$ref")
	if ref == "" {
		return s
	}
	t, ok := r.resolve(ref)
	to, isObj := t.(*jsonObject)
	if !ok || !isObj {
		return s
	}
	return overlay(to.clone(), s, "$ref")
}

// overlay lays over's keywords (but skip) over base: the referring schema's
// own description and constraints win over the target's.
func overlay(base, over *jsonObject, skip string) *jsonObject {
	for _, k := range over.keys {
		if k != skip {
			base.set(k, cloneValue(over.vals[k]))
		}
	}
	return base
}

// mergeInto merges the schema s into dst as allOf means it: properties and
// required lists joined, other keywords kept where dst has none.
func mergeInto(dst, s *jsonObject) {
	for _, k := range s.keys {
		v := s.vals[k]
		switch k {
		case "properties":
			src, ok := v.(*jsonObject)
			if !ok {
				continue
			}
			props := dst.obj("properties")
			if props == nil {
				props = newObject()
				dst.set("properties", props)
			}
			for _, name := range src.keys {
				if !props.has(name) {
					props.set(name, cloneValue(src.vals[name]))
				}
			}
		case "required":
			req := stringList(dst.vals["required"])
			for _, q := range stringList(v) {
				if !containsStr(req, q) {
					req = append(req, q)
				}
			}
			dst.set("required", toAnyList(req))
		case "description":
			if d := dst.str("description"); d == "" {
				dst.set("description", v)
			} else if sd, _ := v.(string); sd != "" && sd != d {
				dst.set("description", d+" "+sd)
			}
		default:
			if !dst.has(k) {
				dst.set(k, cloneValue(v))
			}
		}
	}
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func toAnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func containsString(list []any, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// typeWords names what a schema takes, for a note ("a string", "1 or -1",
// "an object or null").
func typeWords(s *jsonObject) string {
	var words []string
	if c, ok := s.vals["const"]; ok {
		words = append(words, shortJSON(c))
	} else if list, ok := s.vals["enum"].([]any); ok && len(list) > 0 {
		words = append(words, "one of "+joinJSON(list))
	} else if list, ok := s.vals["anyOf"].([]any); ok {
		for _, b := range list {
			if bo, ok := b.(*jsonObject); ok {
				words = append(words, typeWords(bo))
			}
		}
	} else {
		switch t := s.vals["type"].(type) {
		case string:
			words = append(words, article(t))
		case []any:
			for _, e := range t {
				if n, ok := e.(string); ok {
					words = append(words, article(n))
				}
			}
		}
	}
	if n, _ := s.vals["nullable"].(bool); n {
		words = append(words, "null")
	}
	if len(words) == 0 {
		return "any value"
	}
	return strings.Join(words, " or ")
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}
