package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Gemini's function parameters are its Schema, "a select subset of an
// OpenAPI 3.0 schema object": the keywords type (one of string, number,
// integer, boolean, array, object; never a list, never null), format,
// title, description, nullable, enum (strings, for strings only), items
// (one schema, which an array must have), properties (never an empty map)
// and required (only names it lists), anyOf, and the plain bounds
// (minimum, maximum, minLength, maxLength, pattern, minItems, maxItems,
// minProperties, maxProperties). Any other keyword fails the request
// ("Unknown name ... Cannot find field"), and so do a type list ("Proto
// field is not repeating, cannot start list"), a string format other than
// enum and date-time, an enum on a number, and empty properties. The
// translation writes only these keywords and says the rest in words.

// geminiFormats are the formats Gemini takes for each type.
var geminiFormats = map[string][]string{
	"string":  {"enum", "date-time"},
	"number":  {"float", "double"},
	"integer": {"int32", "int64"},
}

const (
	geminiMaxDepth = 24   // deeper schemas are cut: no model reads them
	geminiBudget   = 4000 // schema nodes one tool may write, against a $ref that fans out
	// geminiInline is how many bytes of referenced schemas one tool may
	// inline (besides four times its own size): a hostile server's $ref
	// to a large definition from many places cannot make a request of
	// gigabytes.
	geminiInline = 1 << 20
)

type gemini struct {
	refs   *refResolver
	active map[string]bool // references being inlined: a cycle is cut
	budget int
	inline int            // bytes of referenced schemas left to inline
	cost   map[string]int // each reference's size, measured once
}

func newGemini(refs *refResolver) *gemini {
	return &gemini{refs: refs, active: map[string]bool{}, budget: geminiBudget,
		inline: geminiInline + 4*len(encodeJSON(refs.root)), cost: map[string]int{}}
}

// root translates the parameters object. Its notes (the properties it
// could not declare) are for the tool's description.
func (g *gemini) root(s *jsonObject) (*jsonObject, []string) {
	out, notes, why := g.schema(s, 0)
	if out == nil {
		out = newObject()
		out.set("type", "object")
		if why != "" {
			notes = append(notes, "its arguments are not described: "+why)
		}
	}
	return out, notes
}

// node translates one schema with its notes folded into its description;
// nil means it cannot be written in Gemini's subset, and why (when not
// empty) says what it was, for the parent's description.
func (g *gemini) node(v any, depth int) (*jsonObject, string) {
	out, notes, why := g.schema(v, depth)
	if out != nil {
		addNotes(out, notes)
	}
	return out, why
}

func addNotes(s *jsonObject, notes []string) {
	if len(notes) == 0 {
		return
	}
	n := "(" + strings.Join(notes, "; ") + ")"
	if d := s.str("description"); d != "" {
		n = d + " " + n
	}
	s.set("description", n)
}

// schema translates one schema. s is never changed: what is written is a
// new object holding only the keywords Gemini takes.
func (g *gemini) schema(v any, depth int) (out *jsonObject, notes []string, why string) {
	if depth > geminiMaxDepth || g.budget <= 0 {
		return nil, nil, "nested too deeply to describe"
	}
	g.budget--
	s, ok := v.(*jsonObject)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			return nil, nil, "any JSON value"
		}
		return nil, nil, "" // false (nothing is valid) or not a schema
	}
	// References: the target, with the referring schema's own keywords
	// laid over it; a reference back into a shape being inlined is cut.
	for i := 0; i < 8; i++ {
		ref := s.str("$ref")
		if ref == "" {
			break
		}
		target, ok := g.refs.resolve(ref)
		to, isObj := target.(*jsonObject)
		if !ok || !isObj {
			s = without(s, "$ref")
			break
		}
		if g.active[ref] {
			return g.cycle(s, to, ref)
		}
		cost, ok := g.cost[ref]
		if !ok {
			cost = len(encodeJSON(to))
			g.cost[ref] = cost
		}
		if cost > g.inline {
			return g.cut(s, to, ref)
		}
		g.inline -= cost
		g.active[ref] = true
		defer delete(g.active, ref)
		s = overlay(to.clone(), s, "$ref")
	}
	if all, ok := s.vals["allOf"].([]any); ok {
		m := without(s, "allOf").clone()
		for _, sub := range all {
			if so, ok := g.refs.deref(sub).(*jsonObject); ok {
				mergeInto(m, so)
			}
		}
		s = m
	}
	types, nullable := schemaTypes(s)
	branches, hasUnion := s.vals["anyOf"].([]any)
	oneOf, hasOneOf := s.vals["oneOf"].([]any)
	switch {
	case hasOneOf && !hasUnion:
		branches, hasUnion = oneOf, true // "exactly one" reads as "one": the server checks the rest
	case hasOneOf:
		notes = append(notes, "it must also match exactly one of further shapes, which are not described")
	}
	if !hasUnion && len(types) > 1 {
		// ["string", "number"]: one branch per type, each with the
		// keywords of its own type.
		branches, hasUnion = nil, true
		for _, t := range types {
			b := newObject()
			for _, k := range s.keys {
				switch k {
				case "type", "description", "title", "default", "examples", "nullable":
				default:
					b.set(k, s.vals[k])
				}
			}
			b.set("type", t)
			branches = append(branches, b)
		}
		types = nil
	}
	if hasUnion {
		out, unotes, why := g.union(s, branches, types, nullable, depth)
		return out, append(notes, unotes...), why
	}
	t := ""
	if len(types) == 1 {
		t = types[0]
	} else {
		t = inferType(s)
	}
	if t == "" {
		if nullable {
			return nil, nil, "" // only ever null: nothing to send
		}
		return nil, nil, "any JSON value"
	}
	out, tnotes, why := g.typed(s, t, nullable, depth)
	return out, append(notes, tnotes...), why
}

// cycle is a reference back into a shape being inlined: Gemini's schema
// has no references, so the nested copy is a plain object (Gemini takes an
// object without properties) or, for anything else, left out.
func (g *gemini) cycle(s, target *jsonObject, ref string) (*jsonObject, []string, string) {
	name := ref[strings.LastIndexByte(ref, '/')+1:]
	if name == "" || name == "#" {
		name = "the arguments"
	}
	if t, _ := schemaTypes(target); (len(t) == 1 && t[0] == "object") || (len(t) == 0 && inferType(target) == "object") {
		out := newObject()
		out.set("type", "object")
		// Only a short description: the stub stands where the target would
		// have been inlined again, and must not copy its bytes instead.
		d := s.str("description")
		if d == "" {
			d = target.str("description")
		}
		if d = capChars(d, 200); d != "" {
			out.set("description", d)
		}
		return out, []string{fmt.Sprintf("the same shape as %s, nested again", name)}, ""
	}
	return nil, nil, "a nested " + name
}

// cut stands for a reference not inlined because the tool has inlined as
// much as it may: an object without properties, or for anything else
// nothing, said in words.
func (g *gemini) cut(s, target *jsonObject, ref string) (*jsonObject, []string, string) {
	name := ref[strings.LastIndexByte(ref, '/')+1:]
	if t, _ := schemaTypes(target); (len(t) == 1 && t[0] == "object") || (len(t) == 0 && inferType(target) == "object") {
		out := newObject()
		out.set("type", "object")
		if d := capChars(s.str("description"), 200); d != "" {
			out.set("description", d)
		}
		return out, []string{fmt.Sprintf("a %s, not described: the schema is too large", name)}, ""
	}
	return nil, nil, fmt.Sprintf("a %s (the schema is too large to describe it)", name)
}

// union translates anyOf (or oneOf, or a type list): null branches make it
// nullable, branches that are only values make one enum, one branch left
// is the schema itself.
func (g *gemini) union(s *jsonObject, branches []any, types []string, nullable bool, depth int) (*jsonObject, []string, string) {
	base := newObject() // the keywords beside anyOf, which every branch also means
	for _, k := range s.keys {
		switch k {
		case "anyOf", "oneOf", "description", "title", "default", "examples", "nullable":
		case "type":
			if len(types) == 1 {
				base.set(k, types[0])
			}
		default:
			base.set(k, s.vals[k])
		}
	}
	var resolved []*jsonObject
	for _, b := range branches {
		bo, ok := g.refs.deref(b).(*jsonObject)
		if !ok {
			if v, isBool := b.(bool); isBool && v {
				return nil, nil, "any JSON value" // one branch takes anything: so does the union
			}
			continue
		}
		if isNullSchema(bo) {
			nullable = true
			continue
		}
		if len(base.keys) > 0 {
			m := bo.clone()
			mergeInto(m, base)
			bo = m
		}
		resolved = append(resolved, bo)
	}
	// [{"const": "a"}, {"const": "b"}]: one enum.
	if values, ok := onlyValues(resolved); ok && len(values) > 0 {
		m := newObject()
		for _, k := range s.keys {
			switch k {
			case "anyOf", "oneOf", "type":
			default:
				m.set(k, s.vals[k])
			}
		}
		if nullable {
			m.set("nullable", true)
		}
		m.set("enum", values)
		t := ""
		if len(types) == 1 {
			t = types[0]
		} else {
			t = inferType(m)
		}
		if t == "" {
			return nil, nil, "any JSON value"
		}
		return g.typed(m, t, nullable, depth)
	}
	var kept []any
	var dropped []string
	seen := map[string]bool{}
	keep := func(b *jsonObject) {
		if k := string(encodeJSON(b)); !seen[k] {
			seen[k] = true
			kept = append(kept, b)
		}
	}
	for _, b := range resolved {
		bo, why := g.node(b, depth+1)
		if bo == nil {
			if why != "" {
				dropped = append(dropped, why)
			}
			continue
		}
		// A branch that is itself only a union joins this one.
		if inner, ok := bo.vals["anyOf"].([]any); ok && onlyKeys(bo, "anyOf", "description", "nullable") {
			if n, _ := bo.vals["nullable"].(bool); n {
				nullable = true
			}
			for _, ib := range inner {
				keep(ib.(*jsonObject))
			}
			continue
		}
		keep(bo)
	}
	var notes []string
	if len(dropped) > 0 {
		notes = append(notes, "it may also be "+strings.Join(dropped, " or "))
	}
	desc := s.str("description")
	if desc == "" {
		desc = s.str("title")
	}
	if d, ok := s.vals["default"]; ok {
		notes = append(notes, "default: "+shortJSON(d))
	}
	switch len(kept) {
	case 0:
		if len(dropped) == 0 {
			return nil, nil, "" // only null, or nothing valid
		}
		return nil, nil, strings.Join(dropped, " or ")
	case 1:
		out := kept[0].(*jsonObject)
		if desc != "" {
			if bd := out.str("description"); bd != "" && bd != desc {
				desc += " " + bd
			}
			out.set("description", desc)
		}
		if nullable {
			out.set("nullable", true)
		}
		return out, notes, ""
	}
	out := newObject()
	if desc != "" {
		out.set("description", desc)
	}
	if nullable {
		out.set("nullable", true)
	}
	out.set("anyOf", kept)
	return out, notes, ""
}

// typed writes a schema of one type.
func (g *gemini) typed(s *jsonObject, t string, nullable bool, depth int) (*jsonObject, []string, string) {
	out := newObject()
	out.set("type", t)
	desc := s.str("description")
	if desc == "" {
		desc = s.str("title")
	}
	if desc != "" {
		out.set("description", desc)
	}
	if nullable {
		out.set("nullable", true)
	}
	var notes []string
	if c, ok := s.vals["const"]; ok && c != nil {
		if cs, isStr := c.(string); isStr && t == "string" {
			out.set("enum", []any{cs})
		} else {
			notes = append(notes, "must be "+shortJSON(c))
		}
	} else if list, ok := s.vals["enum"].([]any); ok {
		var values []any
		for _, e := range list {
			if e != nil {
				values = append(values, e)
			}
		}
		if t == "string" {
			strs := make([]any, 0, len(values))
			for _, e := range values {
				if es, isStr := e.(string); isStr {
					strs = append(strs, es)
				} else {
					strs = append(strs, string(encodeJSON(e)))
				}
			}
			if len(strs) > 0 {
				out.set("enum", strs)
			}
		} else if len(values) > 0 {
			words := make([]string, len(values))
			for i, e := range values {
				words[i] = shortJSON(e)
			}
			notes = append(notes, "one of: "+strings.Join(words, ", "))
		}
	}
	if f := s.str("format"); f != "" {
		if containsStr(geminiFormats[t], f) {
			out.set("format", f)
		} else {
			notes = append(notes, "format: "+f)
		}
	}
	switch t {
	case "string":
		copyKeys(out, s, isCount, "minLength", "maxLength")
		if p := s.str("pattern"); p != "" {
			out.set("pattern", p)
		}
	case "number", "integer":
		notes = append(notes, numberBounds(out, s, t)...)
	case "array":
		var why string
		notes, why = g.items(out, s, notes, depth)
		if why != "" {
			return nil, nil, why
		}
		copyKeys(out, s, isCount, "minItems", "maxItems")
		if u, _ := s.vals["uniqueItems"].(bool); u {
			notes = append(notes, "no duplicates")
		}
	case "object":
		notes = append(notes, g.properties(out, s, depth)...)
		copyKeys(out, s, isCount, "minProperties", "maxProperties")
	}
	if d, ok := s.vals["default"]; ok {
		notes = append(notes, "default: "+shortJSON(d))
	}
	return out, notes, ""
}

// items writes an array's items: one schema, which Gemini requires; a
// tuple (a list of item schemas) becomes any of its schemas, in order.
func (g *gemini) items(out, s *jsonObject, notes []string, depth int) ([]string, string) {
	tuple, isTuple := s.vals["prefixItems"].([]any)
	if list, ok := s.vals["items"].([]any); ok {
		tuple, isTuple = list, true
	}
	if isTuple {
		var kept []any
		var words []string
		for _, e := range tuple {
			eo, why := g.node(e, depth+1)
			if eo == nil {
				if why == "" {
					why = "nothing"
				}
				words = append(words, why)
				continue
			}
			kept = append(kept, eo)
			words = append(words, typeWords(eo))
		}
		switch len(kept) {
		case 0:
			return nil, "a list of any values"
		case 1:
			out.set("items", kept[0])
		default:
			u := newObject()
			u.set("anyOf", kept)
			out.set("items", u)
		}
		return append(notes, "in this order: "+strings.Join(words, ", ")), ""
	}
	items, ok := s.vals["items"]
	if !ok {
		return nil, "a list of any values"
	}
	io, why := g.node(items, depth+1)
	if io == nil {
		if why == "" {
			return nil, "an empty list"
		}
		return nil, "a list of " + plural(why)
	}
	out.set("items", io)
	return notes, ""
}

// properties writes an object's properties: those it cannot declare are
// named in its notes, and required lists only the declared ones. An
// object with no property left has no "properties" (Gemini refuses an
// empty map, and takes an object without one).
func (g *gemini) properties(out, s *jsonObject, depth int) []string {
	var notes []string
	required := stringList(s.vals["required"])
	props := newObject()
	if in := s.obj("properties"); in != nil {
		for _, k := range in.keys {
			po, why := g.node(in.vals[k], depth+1)
			if po == nil {
				if why != "" {
					req := ""
					if containsStr(required, k) {
						req = ", required"
					}
					notes = append(notes, fmt.Sprintf("%q (%s%s) is not declared here", k, why, req))
				}
				continue
			}
			props.set(k, po)
		}
	}
	if len(props.keys) > 0 {
		out.set("properties", props)
		var req []any
		for _, k := range required {
			if props.has(k) && !containsString(req, k) {
				req = append(req, k)
			}
		}
		if len(req) > 0 {
			out.set("required", req)
		}
	}
	if ap, ok := s.vals["additionalProperties"].(*jsonObject); ok && len(ap.keys) > 0 {
		what := valueWords(g.refs.deref(ap))
		if len(props.keys) == 0 {
			notes = append(notes, "keys of your choice, each value "+what)
		} else {
			notes = append(notes, "other keys too, each value "+what)
		}
	}
	if pp := s.obj("patternProperties"); pp != nil {
		for _, p := range pp.keys {
			notes = append(notes, fmt.Sprintf("keys matching %s, each value %s", p, valueWords(g.refs.deref(pp.vals[p]))))
		}
	}
	if pn, ok := s.vals["propertyNames"].(*jsonObject); ok {
		if p := pn.str("pattern"); p != "" {
			notes = append(notes, "key names match "+p)
		}
		if e, ok := pn.vals["enum"].([]any); ok {
			notes = append(notes, "key names among: "+joinJSON(e))
		}
	}
	for _, k := range []string{"dependentRequired", "dependencies"} {
		deps := s.obj(k)
		if deps == nil {
			continue
		}
		for _, name := range deps.keys {
			if also := stringList(deps.vals[name]); len(also) > 0 {
				notes = append(notes, fmt.Sprintf("with %q give %s too", name, joinJSON(toAnyList(also))))
			}
		}
	}
	return notes
}

// numberBounds writes minimum and maximum; an exclusive bound becomes the
// next integer for an integer, and is said in words for a number (with
// the inclusive bound, which is weaker but true, for Gemini to check).
func numberBounds(out, s *jsonObject, t string) []string {
	var notes []string
	copyKeys(out, s, isNumber, "minimum", "maximum")
	for _, side := range []struct{ exclusive, bound, words string }{
		{"exclusiveMinimum", "minimum", "greater than "},
		{"exclusiveMaximum", "maximum", "less than "},
	} {
		var bound json.Number
		switch e := s.vals[side.exclusive].(type) {
		case json.Number:
			bound = e
		case bool: // draft 4: the bound itself is excluded
			if b, ok := s.vals[side.bound].(json.Number); ok && e {
				bound = b
			}
		}
		f, err := bound.Float64()
		if bound == "" || err != nil {
			continue
		}
		if t == "integer" {
			next := math.Floor(f) + 1
			if side.bound == "maximum" {
				next = math.Ceil(f) - 1
			}
			out.set(side.bound, json.Number(strconv.FormatFloat(next, 'f', -1, 64)))
			continue
		}
		if _, has := out.vals[side.bound]; !has {
			out.set(side.bound, bound)
		}
		notes = append(notes, side.words+string(bound))
	}
	if m, ok := s.vals["multipleOf"].(json.Number); ok {
		notes = append(notes, "a multiple of "+string(m))
	}
	return notes
}

// schemaTypes is a schema's types without null, and whether null is
// allowed (a "null" type, nullable, or null among the enum's values).
func schemaTypes(s *jsonObject) (types []string, nullable bool) {
	add := func(t string) {
		t = strings.ToLower(t)
		if t == "null" {
			nullable = true
		} else if !containsStr(types, t) {
			types = append(types, t)
		}
	}
	switch t := s.vals["type"].(type) {
	case string:
		add(t)
	case []any:
		for _, e := range t {
			if es, ok := e.(string); ok {
				add(es)
			}
		}
	}
	if n, _ := s.vals["nullable"].(bool); n {
		nullable = true
	}
	if list, ok := s.vals["enum"].([]any); ok {
		for _, e := range list {
			if e == nil {
				nullable = true
			}
		}
	}
	if c, ok := s.vals["const"]; ok && c == nil {
		nullable = true
	}
	return types, nullable
}

// inferType is the type a schema without one means by its keywords.
func inferType(s *jsonObject) string {
	for _, k := range []string{"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties"} {
		if s.has(k) {
			return "object"
		}
	}
	for _, k := range []string{"items", "prefixItems", "minItems", "maxItems", "uniqueItems"} {
		if s.has(k) {
			return "array"
		}
	}
	for _, k := range []string{"minLength", "maxLength", "pattern"} {
		if s.has(k) {
			return "string"
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if s.has(k) {
			return "number"
		}
	}
	var values []any
	if c, ok := s.vals["const"]; ok {
		values = []any{c}
	} else if list, ok := s.vals["enum"].([]any); ok {
		values = list
	}
	return typeOfValues(values)
}

// typeOfValues is the one JSON type of every non-null value, or "".
func typeOfValues(values []any) string {
	t := ""
	for _, v := range values {
		var vt string
		switch v := v.(type) {
		case nil:
			continue
		case string:
			vt = "string"
		case bool:
			vt = "boolean"
		case json.Number:
			vt = "number"
			if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				vt = "integer"
			}
		default:
			return ""
		}
		switch {
		case t == "":
			t = vt
		case t == vt:
		case (t == "integer" && vt == "number") || (t == "number" && vt == "integer"):
			t = "number"
		default:
			return ""
		}
	}
	return t
}

// onlyValues reports whether every branch is only a value (const, or an
// enum, beside a type and words), and returns the values.
func onlyValues(branches []*jsonObject) ([]any, bool) {
	var values []any
	for _, b := range branches {
		has := false
		for _, k := range b.keys {
			switch k {
			case "const":
				values = append(values, b.vals[k])
				has = true
			case "enum":
				list, ok := b.vals[k].([]any)
				if !ok {
					return nil, false
				}
				values = append(values, list...)
				has = true
			case "type", "description", "title":
			default:
				return nil, false
			}
		}
		if !has {
			return nil, false
		}
	}
	return values, true
}

func onlyKeys(s *jsonObject, keys ...string) bool {
	for _, k := range s.keys {
		if !containsStr(keys, k) {
			return false
		}
	}
	return true
}

func isNullSchema(s *jsonObject) bool {
	types, nullable := schemaTypes(s)
	return len(types) == 0 && nullable && !s.has("anyOf") && !s.has("oneOf") && !s.has("$ref")
}

// without is a shallow copy of s less one keyword.
func without(s *jsonObject, key string) *jsonObject {
	out := &jsonObject{vals: make(map[string]any, len(s.vals))}
	for _, k := range s.keys {
		if k != key {
			out.keys = append(out.keys, k)
			out.vals[k] = s.vals[k]
		}
	}
	return out
}

func copyKeys(out, s *jsonObject, ok func(any) bool, keys ...string) {
	for _, k := range keys {
		if v, has := s.vals[k]; has && ok(v) {
			out.set(k, v)
		}
	}
}

func isNumber(v any) bool { _, ok := v.(json.Number); return ok }

// isCount: a non-negative integer, as Gemini's int64 counts are.
func isCount(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil && i >= 0
}

// valueWords names what a schema takes, for a note ("a string").
func valueWords(v any) string {
	s, ok := v.(*jsonObject)
	if !ok || len(s.keys) == 0 {
		return "any value"
	}
	if d := s.str("description"); d != "" && len(d) <= 80 {
		return typeWords(s) + " (" + d + ")"
	}
	return typeWords(s)
}

func plural(what string) string {
	if rest, ok := strings.CutPrefix(what, "a "); ok {
		return rest + "s"
	}
	if rest, ok := strings.CutPrefix(what, "an "); ok {
		return rest + "s"
	}
	return what
}

// shortJSON is a value as JSON, cut to 80 characters for a note.
func shortJSON(v any) string { return capChars(string(encodeJSON(v)), 80) }

func joinJSON(values []any) string {
	words := make([]string, len(values))
	for i, v := range values {
		words[i] = shortJSON(v)
	}
	return strings.Join(words, ", ")
}
