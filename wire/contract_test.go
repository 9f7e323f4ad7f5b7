package wire

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestProtocolTablesMatchTheDeclarations holds docs/protocol.md's method
// table (section 2), command table (section 5) and the editor extras'
// table (section 9) to the declarations of contract.go: every declared
// request, command and agent/editor/* request has exactly one row, no
// row names an undeclared one, and each row's params and result name the
// declared types' JSON fields, field by field, '?' exactly where a field
// may be left out (nested shapes the row writes are checked too).
func TestProtocolTablesMatchTheDeclarations(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := contractRows(string(doc))
	byName := map[string]Method{}
	for _, m := range Methods() {
		byName[m.Name] = m
	}
	seen := map[string]int{}
	for _, r := range rows {
		m, ok := byName[r.name]
		if !ok || !inTables(m) {
			t.Errorf("docs/protocol.md has a row for %q, which wire does not declare as a request, a command or an editor extra", r.name)
			continue
		}
		seen[r.name]++
		for _, e := range checkRow(m, r) {
			t.Errorf("docs/protocol.md, %s: %s", r.name, e)
		}
	}
	n := 0
	for _, m := range Methods() {
		if !inTables(m) {
			continue
		}
		n++
		if seen[m.Name] != 1 {
			t.Errorf("docs/protocol.md has %d rows for %s (%s), want 1", seen[m.Name], m.Name, m.Doc)
		}
	}
	if n < 34 {
		t.Fatalf("checked %d declared methods and commands, want the whole contract (34 or more)", n)
	}
}

// inTables says whether m has a row in docs/protocol.md's tables: the
// requests and commands a client sends, and the editor extras the server
// asks (agent/requestApproval and agent/event have sections of their own).
func inTables(m Method) bool {
	return m.Dir == ClientRequest || m.Dir == CommandRequest || m.Dir == ServerRequest && strings.HasPrefix(m.Name, "agent/editor/")
}

// TestProtocolRowCheckFindsEachKindOfDrift holds the row check to what it
// promises: each kind of drift between a row and a declaration is found.
func TestProtocolRowCheckFindsEachKindOfDrift(t *testing.T) {
	for _, tt := range []struct {
		name            string
		m               Method
		params, result  string
		wantErrContains string // "" wants none
	}{
		{"the row as it should be", Run.Method,
			"`{prompt?, sessionId?, textDocument?: {uri}, range?, diagnostics?}`",
			"`{taskId, sessionId, stopReason, text, error?, usage}`", ""},
		{"a params field missing", Run.Method,
			"`{prompt?, textDocument?, range?, diagnostics?}`", "`{taskId, sessionId, stopReason, text, error?, usage}`", `"sessionId"`},
		{"a field that is not there", Cancel.Method, "`{taskId}` or `{sessionId}` or `{all}`", "`null`", `"all"`},
		{"'?' on a field that must be sent", ResolveApproval.Method, "`{approvalId, optionId?}`", "`null`", "optionId"},
		{"no '?' on a field that may be left out", Run.Method,
			"`{prompt, sessionId?, textDocument?, range?, diagnostics?}`", "`{taskId, sessionId, stopReason, text, error?, usage}`", "prompt"},
		{"a nested field missing", Status.Method, "`{}`", "`{model: {provider, name}, mode}`", `"error"`},
		{"a list of the wrong type", Approvals.Method, "`{}`", "`{approvals: [Server]}`", "Server"},
		{"a null result that is not", Tasks.Method, "`{}`", "`null`", "null"},
		{"a result that is null", Cancel.Method, "`{taskId}` or `{sessionId}`", "`{taskId}`", "null"},
		{"more fields elided", Compact.Method, "`{sessionId}`", "`{sessionId, tokensBefore, ...}`", "..."},
		{"a command argument renamed", CancelCommand.Method, "`[task?]`", "`null`", "task"},
		{"a command argument missing", ApproveCommand.Method, "`[approvalId?]`", "`null`", "optionId"},
		{"a command's object argument", RunCommand.Method, "`[{prompt?, sessionId?, textDocument?, range?, diagnostics?}]`", "`{taskId}`", ""},
		{"a command result as a method's", MCPTrustCommand.Method, "`[server]`", "as `agent/mcp/trust`", ""},
		{"a command result as the wrong method's", MCPTrustCommand.Method, "`[server]`", "as `agent/mcp/revoke`", "agent/mcp/revoke"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errs := checkRow(tt.m, row{name: tt.m.Name, params: tt.params, result: tt.result})
			got := strings.Join(errs, "; ")
			if tt.wantErrContains == "" && len(errs) > 0 {
				t.Errorf("errors %q, want none", got)
			}
			if tt.wantErrContains != "" && !strings.Contains(got, tt.wantErrContains) {
				t.Errorf("errors %q, want one naming %s", got, tt.wantErrContains)
			}
		})
	}
}

func TestUsageIsTheParamsShape(t *testing.T) {
	for m, want := range map[Method]string{
		Run.Method:            `{"prompt"?, "sessionId"?, "textDocument"?, "range"?, "diagnostics"?}`,
		Tasks.Method:          "{}",
		ApproveCommand.Method: "[approvalId?, optionId?]",
		PromptCommand.Method:  `[{"server", "prompt", "arguments"?, "sessionId"?}]`,
		NewChatCommand.Method: "[]",
	} {
		if got := m.Usage(); got != want {
			t.Errorf("%s usage = %q, want %q", m.Name, got, want)
		}
	}
}

func TestDecodeArgsIsPositional(t *testing.T) {
	var a ApproveArgs
	if err := DecodeArgs([]json.RawMessage{json.RawMessage(`"a1"`), json.RawMessage(`"allow_always"`)}, &a); err != nil || a != (ApproveArgs{"a1", "allow_always"}) {
		t.Errorf("DecodeArgs = %+v, %v", a, err)
	}
	a = ApproveArgs{}
	if err := DecodeArgs([]json.RawMessage{json.RawMessage(`null`), json.RawMessage(`"reject_once"`), json.RawMessage(`"extra"`)}, &a); err != nil || a != (ApproveArgs{"", "reject_once"}) {
		t.Errorf("DecodeArgs with a null first and one argument too many = %+v, %v", a, err)
	}
	err := DecodeArgs([]json.RawMessage{json.RawMessage(`"a1"`), json.RawMessage(`42`)}, &a)
	if ae, ok := err.(*ArgError); !ok || ae.N != 2 || !strings.HasPrefix(err.Error(), "argument 2: ") {
		t.Errorf("DecodeArgs with a number for optionId: %v, want an ArgError naming argument 2", err)
	}
	if got := EncodeArgs(ApproveArgs{"a1", "allow_once"}); !reflect.DeepEqual(got, []any{"a1", "allow_once"}) {
		t.Errorf("EncodeArgs = %v", got)
	}
}

func TestNullIsNull(t *testing.T) {
	if b, err := json.Marshal(Null{}); err != nil || string(b) != "null" {
		t.Errorf("Null marshals as %s, %v", b, err)
	}
}

// row is one row of a method or command table: the name and the cells.
type row struct{ name, params, result string }

// contractRows are the rows of docs/protocol.md's tables whose first cell
// is one code span naming an agent/ method or an agentls. command.
func contractRows(doc string) []row {
	var rows []row
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := tableCells(line)
		if len(cells) < 3 {
			continue
		}
		first := strings.TrimSpace(cells[0])
		spans := codeSpans(first)
		if len(spans) != 1 || "`"+spans[0]+"`" != first {
			continue
		}
		name := spans[0]
		if strings.HasPrefix(name, "agent/") || strings.HasPrefix(name, "agentls.") {
			rows = append(rows, row{name: name, params: cells[1], result: cells[2]})
		}
	}
	return rows
}

// tableCells splits a table line on the '|' outside code spans.
func tableCells(line string) []string {
	var cells []string
	var cur strings.Builder
	code := false
	for _, r := range strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|") {
		switch {
		case r == '`':
			code = !code
		case r == '|' && !code:
			cells = append(cells, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(cells, cur.String())
}

// codeSpans are the backquoted spans of a cell.
func codeSpans(cell string) []string {
	var spans []string
	for i, part := range strings.Split(cell, "`") {
		if i%2 == 1 {
			spans = append(spans, part)
		}
	}
	return spans
}

// isShape says whether a code span writes a shape: an object, a list or null.
func isShape(span string) bool {
	return span == "null" || strings.HasPrefix(span, "{") || strings.HasPrefix(span, "[")
}

// checkRow compares a row with its declaration and returns what differs.
func checkRow(m Method, r row) []string {
	var errs []string
	// Params: every shape of the cell is one alternative ({taskId} or {sessionId}).
	var alts []*node
	for _, span := range codeSpans(r.params) {
		if !isShape(span) {
			continue
		}
		n, err := parseShape(span)
		if err != nil {
			return []string{fmt.Sprintf("params %q: %v", span, err)}
		}
		alts = append(alts, n)
	}
	switch {
	case len(alts) == 0:
		errs = append(errs, "the params cell writes no shape; want "+m.Usage())
	case m.Dir == CommandRequest:
		if len(alts) != 1 || alts[0].kind != '[' {
			errs = append(errs, "a command's arguments are one list; want "+m.Usage())
		} else {
			errs = append(errs, checkArgs(alts[0], m.Params)...)
		}
	default:
		errs = append(errs, checkObject("params", alts, m.Params)...)
	}
	// Result: the cell's first shape, or "as `method`" for the same result.
	var shape string
	var sameAs []string
	for _, span := range codeSpans(r.result) {
		if isShape(span) {
			shape = span
			break
		}
		sameAs = append(sameAs, span)
	}
	if shape == "" {
		for _, other := range declared {
			if len(sameAs) > 0 && other.Name == sameAs[0] && other.Dir == ClientRequest {
				if other.Result != m.Result {
					errs = append(errs, fmt.Sprintf("result written as %s's (%v), but it is %v", other.Name, other.Result, m.Result))
				}
				return errs
			}
		}
		return append(errs, "the result cell writes no shape nor a declared method whose result it is")
	}
	n, err := parseShape(shape)
	if err != nil {
		return append(errs, fmt.Sprintf("result %q: %v", shape, err))
	}
	nullResult := m.Result == reflect.TypeFor[Null]()
	switch {
	case n.kind == 'n' && !nullResult:
		errs = append(errs, fmt.Sprintf("result written null, but it is %v", m.Result))
	case n.kind != 'n' && nullResult:
		errs = append(errs, fmt.Sprintf("result written %s, but it is null", shape))
	case n.kind == '{':
		errs = append(errs, checkObject("result", []*node{n}, m.Result)...)
	}
	return errs
}

// checkObject compares the alternatives of an object shape with struct t:
// their keys together are t's JSON fields, and a field may be left out
// (omitempty) exactly when an alternative leaves it out or marks it '?'.
func checkObject(where string, alts []*node, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Map || t.Kind() == reflect.Interface {
		return nil // any keys
	}
	var errs []string
	fields := map[string]Field{}
	for _, f := range Fields(t) {
		fields[f.Name] = f
	}
	optional := map[string]bool{}
	for _, a := range alts {
		if a.kind != '{' {
			errs = append(errs, fmt.Sprintf("%s is written as a list or null, but %v is an object", where, t))
			continue
		}
		in := map[string]bool{}
		for _, e := range a.entries {
			if e.key == "..." {
				errs = append(errs, fmt.Sprintf("%s elides fields with '...': write each of %v's", where, t))
				continue
			}
			in[e.key] = true
			f, ok := fields[e.key]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s names %q, which %v does not have", where, e.key, t))
				continue
			}
			if e.opt {
				optional[e.key] = true
			}
			if e.value != nil {
				errs = append(errs, checkValue(where+"."+e.key, e.value, f.Type)...)
			}
		}
		for name := range fields {
			if !in[name] {
				optional[name] = true
			}
		}
	}
	for _, f := range Fields(t) {
		seen := false
		for _, a := range alts {
			for _, e := range a.entries {
				seen = seen || e.key == f.Name
			}
		}
		switch {
		case !seen:
			errs = append(errs, fmt.Sprintf("%s does not name %q (a field of %v)", where, f.Name, t))
		case f.Optional && !optional[f.Name]:
			errs = append(errs, fmt.Sprintf("%s writes %s without '?', but %v may leave it out", where, f.Name, t))
		case !f.Optional && optional[f.Name]:
			errs = append(errs, fmt.Sprintf("%s writes %s as one that may be left out, but %v always has it (no omitempty)", where, f.Name, t))
		}
	}
	return errs
}

// checkValue compares the shape written for a field's value with its type.
func checkValue(where string, n *node, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.kind {
	case '{':
		return checkObject(where, []*node{n}, t)
	case '[':
		if t.Kind() != reflect.Slice {
			return []string{fmt.Sprintf("%s is written as a list, but it is %v", where, t)}
		}
		if len(n.elems) != 1 {
			return []string{fmt.Sprintf("%s: write a list's element once", where)}
		}
		return checkValue(where+"[]", n.elems[0].node, t.Elem())
	case 'w':
		if n.word[0] < 'A' || n.word[0] > 'Z' {
			if t.Kind() == reflect.Struct {
				return []string{fmt.Sprintf("%s is written as %q, but it is the object %v", where, n.word, t)}
			}
			return nil
		}
		if t.Kind() == reflect.Interface || namesType(n.word, t) {
			return nil
		}
		return []string{fmt.Sprintf("%s is written as %s, but it is %v", where, n.word, t)}
	}
	return nil // a literal value (all: true)
}

// namesType says whether a type name the doc writes (Approval) is t or a
// struct t embeds (ApprovalRequest embeds Approval).
func namesType(name string, t reflect.Type) bool {
	if t.Name() == name {
		return true
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous && namesType(name, f.Type) {
			return true
		}
	}
	return false
}

// checkArgs compares a command's argument list with its arguments type.
func checkArgs(n *node, t reflect.Type) []string {
	fields := Fields(t)
	if len(n.elems) != len(fields) {
		return []string{fmt.Sprintf("writes %d arguments, but it takes %d: %s", len(n.elems), len(fields), shape(t, "[", "]"))}
	}
	var errs []string
	for i, f := range fields {
		e := n.elems[i]
		if f.Name == "" {
			errs = append(errs, checkValue(fmt.Sprintf("argument %d", i+1), e.node, f.Type)...)
			continue
		}
		if e.node.kind != 'w' || e.node.word != f.Name {
			errs = append(errs, fmt.Sprintf("argument %d is %s", i+1, f.Name))
		} else if e.opt != f.Optional {
			errs = append(errs, fmt.Sprintf("argument %d (%s): '?' is written %v, but optional is %v", i+1, f.Name, e.opt, f.Optional))
		}
	}
	return errs
}

// node is a parsed shape: an object ('{'), a list ('['), null ('n'), a
// word ('w', a name or a type) or a literal ('l').
type node struct {
	kind    byte
	word    string
	entries []entry
	elems   []elem
}

// entry is an object's key, '?' and the value written for it, if any.
type entry struct {
	key   string
	opt   bool
	value *node
}

// elem is a list's element and its '?' (a command's optional argument).
type elem struct {
	node *node
	opt  bool
}

// parseShape parses the shapes docs/protocol.md writes: {a, b?, c: {d},
// e: [{f}], g: true, ...}, [name?, {a}], [Type], null.
func parseShape(s string) (*node, error) {
	p := &shapeParser{s: s}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the shape", p.s[p.i:])
	}
	return n, nil
}

type shapeParser struct {
	s string
	i int
}

func (p *shapeParser) skip() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *shapeParser) peek() byte {
	p.skip()
	if p.i == len(p.s) {
		return 0
	}
	return p.s[p.i]
}

// word reads a name, or a string in double quotes (quoted true).
func (p *shapeParser) word() (w string, quoted bool) {
	p.skip()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '"' {
		end := strings.IndexByte(p.s[p.i+1:], '"')
		if end < 0 {
			return "", false
		}
		p.i += end + 2
		return p.s[start+1 : p.i-1], true
	}
	for p.i < len(p.s) && strings.IndexByte(" ,:?{}[]", p.s[p.i]) < 0 {
		p.i++
	}
	return p.s[start:p.i], false
}

func (p *shapeParser) value() (*node, error) {
	switch p.peek() {
	case '{':
		p.i++
		n := &node{kind: '{'}
		for p.peek() != '}' {
			k, _ := p.word()
			if k == "" {
				return nil, fmt.Errorf("a key expected at %q", p.s[p.i:])
			}
			e := entry{key: k}
			if p.peek() == '?' {
				e.opt = true
				p.i++
			}
			if p.peek() == ':' {
				p.i++
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				e.value = v
			}
			n.entries = append(n.entries, e)
			if err := p.sep('}'); err != nil {
				return nil, err
			}
		}
		p.i++
		return n, nil
	case '[':
		p.i++
		n := &node{kind: '['}
		for p.peek() != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			e := elem{node: v}
			if p.peek() == '?' {
				e.opt = true
				p.i++
			}
			n.elems = append(n.elems, e)
			if err := p.sep(']'); err != nil {
				return nil, err
			}
		}
		p.i++
		return n, nil
	case 0:
		return nil, fmt.Errorf("the shape ends early")
	}
	w, quoted := p.word()
	switch {
	case w == "" && !quoted:
		return nil, fmt.Errorf("unexpected %q", p.s[p.i:])
	case w == "null":
		return &node{kind: 'n'}, nil
	case quoted || w == "true" || w == "false" || (w[0] >= '0' && w[0] <= '9'):
		return &node{kind: 'l', word: w}, nil
	}
	return &node{kind: 'w', word: w}, nil
}

// sep reads a ',' or stops before end.
func (p *shapeParser) sep(end byte) error {
	switch p.peek() {
	case ',':
		p.i++
		return nil
	case end:
		return nil
	}
	return fmt.Errorf("',' or %q expected at %q", end, p.s[p.i:])
}

// TestEveryDeclarationIsWhole: each declaration says in one line what it
// does, its params are an object (a command's, its arguments in order),
// and its result is an object or null, so the tables can be checked.
func TestEveryDeclarationIsWhole(t *testing.T) {
	names := map[string]bool{}
	for _, m := range Methods() {
		if names[m.Name] {
			t.Errorf("%s is declared twice", m.Name)
		}
		names[m.Name] = true
		if m.Doc == "" || strings.Contains(m.Doc, "\n") {
			t.Errorf("%s: its doc line %q should say in one line what it does", m.Name, m.Doc)
		}
		if m.Params.Kind() != reflect.Struct {
			t.Errorf("%s: params %v are not a struct", m.Name, m.Params)
		}
		if m.Dir == CommandRequest {
			for i := range m.Params.NumField() {
				if _, ok := m.Params.Field(i).Tag.Lookup("arg"); !ok {
					t.Errorf("%s: field %s of %v has no arg tag: a command's arguments are positional", m.Name, m.Params.Field(i).Name, m.Params)
				}
			}
		}
		if m.Dir != ServerNotification && m.Result.Kind() != reflect.Struct {
			t.Errorf("%s: result %v is neither an object nor Null", m.Name, m.Result)
		}
	}
}
