package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/agent/model/providers"
)

// The fake refuses tool definitions the way the provider it plays does,
// each rule written from that provider's documentation and the errors it
// is known to answer, in its words: Anthropic's on the Messages wire,
// Gemini's when the model asked for is a Gemini model ("gemini-2.5-flash",
// or "google/gemini-…" through a router: the model reads the schema
// wherever it is served, and Google's endpoint serves no other), OpenAI's
// otherwise. Playing a vendor's streams (SetVendor) does not change them:
// a test of Gemini's schema rules names a Gemini model, as its users do.

// ToolDialect names whose rules for tool definitions a request is held to.
type ToolDialect string

// The dialects the fake checks.
const (
	AnthropicTools ToolDialect = "anthropic"
	OpenAITools    ToolDialect = "openai"
	GeminiTools    ToolDialect = "gemini"
)

// ToolDialectFor is the dialect a request of wire w asking for model is
// held to.
func ToolDialectFor(w providers.Wire, model string) ToolDialect {
	if w == providers.Messages {
		return AnthropicTools
	}
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if strings.HasPrefix(name, "gemini") {
		return GeminiTools
	}
	return OpenAITools
}

// ToolProblems lists everything the vendor would refuse in the tools of a
// request body, each as the provider words it; none when it takes them.
func ToolProblems(dialect ToolDialect, body []byte) []string {
	var req struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description *string         `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Function    struct {
				Name        string          `json:"name"`
				Description *string         `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return []string{"the request body is not JSON: " + err.Error()}
	}
	var out []string
	for i, t := range req.Tools {
		switch dialect {
		case AnthropicTools:
			out = append(out, anthropicSchemaProblems(fmt.Sprintf("tools.%d.custom.input_schema", i), t.InputSchema)...)
		case OpenAITools:
			out = append(out, openaiToolProblems(i, t.Function.Name, t.Function.Description, t.Function.Parameters)...)
		case GeminiTools:
			path := fmt.Sprintf("tools[0].function_declarations[%d].parameters", i)
			if len(bytes.TrimSpace(t.Function.Parameters)) > 0 && string(t.Function.Parameters) != "null" {
				v, err := decodeOrdered(t.Function.Parameters)
				if err != nil {
					out = append(out, "Invalid JSON payload received. "+err.Error())
					continue
				}
				out = append(out, geminiSchemaProblems(path, v)...)
			}
		}
	}
	return out
}

// checkTools is the refusal for a request whose tools the dialect
// refuses: Google's error array, OpenAI's error with its code, Anthropic's
// invalid_request_error.
func checkTools(dialect ToolDialect, body []byte) *refusal {
	problems := ToolProblems(dialect, body)
	if len(problems) == 0 {
		return nil
	}
	switch dialect {
	case GeminiTools:
		return &refusal{status: 400, raw: mustJSON([]any{map[string]any{"error": map[string]any{
			"code": 400, "message": strings.Join(problems, "\n"), "status": "INVALID_ARGUMENT"}}})}
	case OpenAITools:
		code := "invalid_function_parameters"
		if strings.Contains(problems[0], "string too long") {
			code = "string_above_max_length"
		}
		return &refusal{status: 400, typ: "invalid_request_error", code: code, param: "tools", m: problems[0]}
	}
	return &refusal{status: 400, typ: "invalid_request_error", m: problems[0]}
}

// OpenAI: a function's description is at most 1,024 characters; its
// parameters are a JSON Schema object that lists its properties; every
// array schema has items. (Omitting parameters is a function without any.)
const openaiMaxDescription = 1024

func openaiToolProblems(i int, name string, desc *string, params json.RawMessage) []string {
	var out []string
	if desc != nil {
		if n := utf8.RuneCountInString(*desc); n > openaiMaxDescription {
			out = append(out, fmt.Sprintf("Invalid 'tools[%d].function.description': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", i, openaiMaxDescription, n))
		}
	}
	if len(bytes.TrimSpace(params)) == 0 || string(params) == "null" {
		return out
	}
	var root map[string]any
	if json.Unmarshal(params, &root) != nil || root == nil {
		return append(out, fmt.Sprintf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"None\"'.", name))
	}
	if root["type"] != "object" {
		return append(out, fmt.Sprintf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%v\"'.", name, pyValue(root["type"])))
	}
	if _, ok := root["properties"]; !ok {
		out = append(out, fmt.Sprintf("Invalid schema for function '%s': In context=(), object schema missing properties.", name))
	}
	walkSchemas(root, nil, func(s map[string]any, ctx []string) {
		if t, ok := s["type"]; ok && (t == "array" || containsAny(t, "array")) {
			if _, ok := s["items"]; !ok {
				if _, ok := s["prefixItems"]; !ok {
					out = append(out, fmt.Sprintf("Invalid schema for function '%s': In context=%s, array schema missing items.", name, pyTuple(ctx)))
				}
			}
		}
	})
	return out
}

// Anthropic: input_schema is a JSON Schema whose root has type "object",
// with no oneOf, allOf or anyOf at the top level.
func anthropicSchemaProblems(path string, schema json.RawMessage) []string {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil || root == nil {
		return []string{path + ": Input should be a valid dictionary"}
	}
	var out []string
	switch t, ok := root["type"]; {
	case !ok:
		out = append(out, path+".type: Field required")
	case t != "object":
		out = append(out, path+".type: Input should be 'object'")
	}
	for _, k := range []string{"oneOf", "allOf", "anyOf"} {
		if _, ok := root[k]; ok {
			out = append(out, path+": input_schema does not support oneOf, allOf, or anyOf at the top level")
			break
		}
	}
	return out
}

// Gemini's Schema (its function declarations' parameters) is a subset of
// OpenAPI 3.0: these keywords and no other.
var geminiKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

var geminiTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "array": true, "object": true}

var geminiFormats = map[string][]string{"string": {"enum", "date-time"}, "number": {"float", "double"}, "integer": {"int32", "int64"}}

// geminiSchemaProblems checks one Schema the way Gemini's request parser
// and validator do: unknown keywords and lists where one value belongs
// fail parsing, then each typed rule.
func geminiSchemaProblems(path string, v any) []string {
	s, ok := v.(*orderedObject)
	if !ok {
		return []string{fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Proto field is not repeating, cannot start list.", lastName(path), parentPath(path))}
	}
	var out []string
	for _, k := range s.keys {
		if !geminiKeys[k] {
			out = append(out, fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", k, path))
		}
	}
	typ := ""
	switch t := s.vals["type"].(type) {
	case nil: // no type: any of anyOf's, or unspecified
	case string:
		typ = strings.ToLower(t)
		if !geminiTypes[typ] {
			out = append(out, fmt.Sprintf("Invalid value at '%s.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), %q", path, t))
		}
	case []any:
		out = append(out, fmt.Sprintf("Invalid JSON payload received. Unknown name \"type\" at '%s': Proto field is not repeating, cannot start list.", path))
	default:
		out = append(out, fmt.Sprintf("Invalid value at '%s.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), %s", path, encodeOrdered(t)))
	}
	if f, ok := s.vals["format"].(string); ok && typ != "" {
		if allowed := geminiFormats[typ]; !containsStr(allowed, f) {
			switch typ {
			case "string":
				out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.format: only 'enum' and 'date-time' are supported for STRING type", path))
			default:
				out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.format: %q is not supported for %s type", path, f, strings.ToUpper(typ)))
			}
		}
	}
	if e, ok := s.vals["enum"]; ok {
		list, isList := e.([]any)
		switch {
		case !isList:
			out = append(out, fmt.Sprintf("Invalid JSON payload received. Unknown name \"enum\" at '%s': Proto field is repeating, cannot start object.", path))
		case typ != "string":
			out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.enum: only allowed for STRING type", path))
		default:
			for i, x := range list {
				if _, isStr := x.(string); !isStr {
					out = append(out, fmt.Sprintf("Invalid value at '%s.enum[%d]' (TYPE_STRING), %s", path, i, encodeOrdered(x)))
				}
			}
		}
	}
	props, hasProps := s.vals["properties"]
	if hasProps {
		po, isObj := props.(*orderedObject)
		switch {
		case !isObj:
			out = append(out, fmt.Sprintf("Invalid JSON payload received. Unknown name \"properties\" at '%s': Proto field is not repeating, cannot start list.", path))
		case typ != "object":
			out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.properties: only allowed for OBJECT type", path))
		case len(po.keys) == 0:
			out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.properties: should be non-empty for OBJECT type", path))
		default:
			for _, k := range po.keys {
				out = append(out, geminiSchemaProblems(fmt.Sprintf("%s.properties[%s]", path, k), po.vals[k])...)
			}
		}
	}
	if r, ok := s.vals["required"]; ok {
		list, isList := r.([]any)
		po, _ := props.(*orderedObject)
		if !isList {
			out = append(out, fmt.Sprintf("Invalid JSON payload received. Unknown name \"required\" at '%s': Proto field is repeating, cannot start object.", path))
		} else {
			for i, name := range list {
				n, _ := name.(string)
				if po == nil || !po.has(n) {
					out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.required[%d]: property is not defined", path, i))
				}
			}
		}
	}
	items, hasItems := s.vals["items"]
	switch {
	case typ == "array" && !hasItems:
		out = append(out, fmt.Sprintf("* GenerateContentRequest.%s.items: missing field.", path))
	case hasItems:
		out = append(out, geminiSchemaProblems(path+".items", items)...)
	}
	if a, ok := s.vals["anyOf"]; ok {
		list, isList := a.([]any)
		if !isList {
			out = append(out, fmt.Sprintf("Invalid JSON payload received. Unknown name \"anyOf\" at '%s': Proto field is repeating, cannot start object.", path))
		}
		for i, b := range list {
			out = append(out, geminiSchemaProblems(fmt.Sprintf("%s.any_of[%d]", path, i), b)...)
		}
	}
	if n, ok := s.vals["nullable"]; ok {
		if _, isBool := n.(bool); !isBool {
			out = append(out, fmt.Sprintf("Invalid value at '%s.nullable' (TYPE_BOOL), %s", path, encodeOrdered(n)))
		}
	}
	for _, k := range []string{"minimum", "maximum"} {
		if n, ok := s.vals[k]; ok {
			if _, isNum := n.(json.Number); !isNum {
				out = append(out, fmt.Sprintf("Invalid value at '%s.%s' (TYPE_DOUBLE), %s", path, k, encodeOrdered(n)))
			}
		}
	}
	for _, k := range []string{"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"} {
		if n, ok := s.vals[k]; ok && !isInt64(n) {
			out = append(out, fmt.Sprintf("Invalid value at '%s.%s' (TYPE_INT64), %s", path, k, encodeOrdered(n)))
		}
	}
	for _, k := range []string{"description", "title", "pattern", "format"} {
		if n, ok := s.vals[k]; ok {
			if _, isStr := n.(string); !isStr {
				out = append(out, fmt.Sprintf("Invalid value at '%s.%s' (TYPE_STRING), %s", path, k, encodeOrdered(n)))
			}
		}
	}
	return out
}

// isInt64 is a proto int64 in JSON: an integer, or a string of one.
func isInt64(v any) bool {
	switch n := v.(type) {
	case json.Number:
		_, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil
	case string:
		_, err := strconv.ParseInt(n, 10, 64)
		return err == nil
	}
	return false
}

func lastName(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return strings.Trim(path[i+1:], "]")
	}
	return path
}

func parentPath(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

func containsStr(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func containsAny(v any, s string) bool {
	list, _ := v.([]any)
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// walkSchemas calls f on every schema in s with its context, as OpenAI
// names it: the path of keys from the root, e.g. ('properties', 'x').
func walkSchemas(s map[string]any, ctx []string, f func(map[string]any, []string)) {
	f(s, ctx)
	sub := func(v any, path ...string) {
		if m, ok := v.(map[string]any); ok {
			walkSchemas(m, append(append([]string(nil), ctx...), path...), f)
		}
	}
	for _, k := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if m, ok := s[k].(map[string]any); ok {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sub(m[n], k, n)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		sub(s[k], k)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := s[k].([]any); ok {
			for i, e := range list {
				sub(e, k, strconv.Itoa(i))
			}
		}
	}
}

func pyTuple(ctx []string) string {
	if len(ctx) == 0 {
		return "()"
	}
	q := make([]string, len(ctx))
	for i, c := range ctx {
		q[i] = "'" + c + "'"
	}
	if len(q) == 1 {
		return "(" + q[0] + ",)"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

func pyValue(v any) string {
	if v == nil {
		return "None"
	}
	return fmt.Sprint(v)
}

// orderedObject is a JSON object with its keys in order (Gemini's errors
// name the first offending field as the parser meets it).
type orderedObject struct {
	keys []string
	vals map[string]any
}

func (o *orderedObject) has(k string) bool { _, ok := o.vals[k]; return ok }

func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeOrderedValue(dec)
}

func decodeOrderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if d == '[' {
		list := []any{}
		for dec.More() {
			v, err := decodeOrderedValue(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	o := &orderedObject{vals: map[string]any{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		v, err := decodeOrderedValue(dec)
		if err != nil {
			return nil, err
		}
		if !o.has(k) {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	_, err = dec.Token()
	return o, err
}

func encodeOrdered(v any) string {
	switch v := v.(type) {
	case *orderedObject:
		m := map[string]any{}
		for k, e := range v.vals {
			m[k] = json.RawMessage(encodeOrdered(e))
		}
		b, _ := json.Marshal(m)
		return string(b)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = encodeOrdered(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
