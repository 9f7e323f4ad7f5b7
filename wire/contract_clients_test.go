package wire

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestEditorPluginsCallTheDeclaredContract reads the editor plugins' own
// calls (the VS Code extension's JavaScript, the Neovim plugin's Lua) and
// holds each one to the declarations of contract.go, field by field: every
// agent/* method a plugin names is declared, every agentls.* command it runs
// is declared, every params field it sends (in an object literal, or set on
// the variable it sends: params.range = ...) is a field of the declared
// params, nested objects too, a command gets no more arguments than it
// takes and an object argument only its fields, and every result field it
// reads (const {tasks} = ..., res.sessionId in the callback) is a field of
// the declared result. So a field renamed on either side fails here.
func TestEditorPluginsCallTheDeclaredContract(t *testing.T) {
	files := []string{"../clients/vscode/extension.js"}
	for _, dir := range []string{"../clients/vscode/lib", "../clients/neovim/lua", "../clients/neovim/plugin"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".js") || strings.HasSuffix(path, ".lua")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, errs := checkClientSource(filepath.Base(f), string(src))
		calls += n
		for _, e := range errs {
			t.Errorf("%s", e)
		}
	}
	if len(files) < 10 || calls < 25 {
		t.Fatalf("read %d calls in %d plugin files, want every plugin's calls (25 or more in 10 or more files)", calls, len(files))
	}
}

// TestClientCheckFindsEachKindOfDrift holds the plugin check to what it
// promises, in both languages.
func TestClientCheckFindsEachKindOfDrift(t *testing.T) {
	for _, tt := range []struct {
		name, file, src string
		want            string // in the errors; "" wants none
	}{
		{"js: the calls as they should be", "a.js", `
async function f(client) {
  const params = { prompt };
  params.textDocument = { uri: 'file:///x' };
  const result = await client.sendRequest('agent/run', params);
  const { tasks } = await client.sendRequest('agent/tasks', {});
  await client.sendRequest('workspace/executeCommand', { command: 'agentls.prompt', arguments: [{ server: s.name, prompt: p.name }] });
  return result.sessionId;
}
`, ""},
		{"js: an undeclared method", "a.js", "async function f(client) {\n  await client.sendRequest('agent/frob', {});\n}\n", `"agent/frob"`},
		{"js: a params field renamed", "a.js", "async function f(client) {\n  await client.sendRequest('agent/cancel', { task: id });\n}\n", `"task"`},
		{"js: a field set on the params variable", "a.js", "async function f(client) {\n  const params = {};\n  params.session = 's1';\n  await client.sendRequest('agent/newChat', params);\n}\n", `"session"`},
		{"js: a nested field", "a.js", "async function f(client) {\n  await client.sendRequest('agent/run', { prompt, textDocument: { url: u } });\n}\n", `"url"`},
		{"js: a result field destructured", "a.js", "async function f(client) {\n  const { servers, list } = await client.sendRequest('agent/mcp/servers', {});\n}\n", `"list"`},
		{"js: a result field read", "a.js", "async function f(client) {\n  const r = await client.sendRequest('agent/run', { prompt });\n  return r.stop;\n}\n", `"stop"`},
		{"js: an undeclared command", "a.js", "async function f(client) {\n  await client.sendRequest('workspace/executeCommand', { command: 'agentls.frob', arguments: [] });\n}\n", `"agentls.frob"`},
		{"js: too many arguments", "a.js", "async function f(client) {\n  await client.sendRequest('workspace/executeCommand', { command: 'agentls.deny', arguments: [id, 'x'] });\n}\n", "2 arguments"},
		{"js: an object argument's field", "a.js", "async function f(client) {\n  await client.sendRequest('workspace/executeCommand', { command: 'agentls.prompt', arguments: [{ server: s, name: n }] });\n}\n", `"name"`},
		{"js: params it cannot read", "a.js", "async function f(client) {\n  await client.sendRequest('agent/cancel', build());\n}\n", "cannot read"},
		{"js: each method's own params, a nested template between", "a.js", "const C = {\n  async run() {\n    const params = { prompt };\n    params.range = r;\n    notice(`a ${x ? `b ${y}` : ''} c`);\n    await client.sendRequest('agent/run', params);\n  },\n  async new() {\n    const params = { sessionId: s };\n    await client.sendRequest('agent/newChat', params);\n  },\n};\n", ""},
		{"lua: the calls as they should be", "a.lua", `
function M.f(client)
  local params = { prompt = "x", sessionId = cur }
  params.range = { start = a, ["end"] = b }
  lsp.request(client, "agent/run", params, function(err, res)
    if res and res.sessionId then
      x = res.text
    end
  end)
  local args = cur and { cur } or {}
  lsp.request(client, "workspace/executeCommand", { command = "agentls.transcript", arguments = args }, function(err) end)
  t = on_server("agent/mcp/trust", function(n)
    return { server = n }
  end)
end
`, ""},
		{"lua: vim.empty_dict() is the object {}", "a.lua", "function M.f(client)\n  lsp.request(client, \"agent/sessions\", vim.empty_dict(), function(err, res)\n    print(res.sessions)\n  end)\nend\n", ""},
		{"lua: a params field renamed", "a.lua", "function M.f(client)\n  lsp.request(client, \"agent/resolveApproval\", { approvalId = a, option = o }, function(e) end)\nend\n", `"option"`},
		{"lua: a result field read in the callback", "a.lua", "function M.f(client)\n  lsp.request(client, \"agent/compact\", { sessionId = s }, function(err, res)\n    print(res.before)\n  end)\nend\n", `"before"`},
		{"lua: params returned by a function", "a.lua", "function M.f()\n  x = on_server(\"agent/mcp/restart\", function(n)\n    return { name = n }\n  end)\nend\n", `"name"`},
		{"lua: a field on the params variable", "a.lua", "function M.f(client)\n  local params = { prompt = p }\n  params.document = d\n  lsp.request(client, \"agent/run\", params, function(err, res) end)\nend\n", `"document"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := checkClientSource(tt.file, tt.src)
			got := strings.Join(errs, "; ")
			if tt.want == "" && len(errs) > 0 {
				t.Errorf("errors %q, want none", got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("errors %q, want one naming %s", got, tt.want)
			}
		})
	}
}

// methodLiteral is a string literal that is exactly a method name: an
// agent/* method or workspace/executeCommand.
var methodLiteral = regexp.MustCompile(`["'](agent/[A-Za-z/]+|workspace/executeCommand)["']`)

// checkClientSource checks every call of one plugin file and returns how
// many it read and what differs from the declarations.
func checkClientSource(file, src string) (int, []string) {
	lua := strings.HasSuffix(file, ".lua")
	src = blankComments(src, lua)
	byName := map[string]Method{}
	for _, m := range Methods() {
		byName[m.Name] = m
	}
	var errs []string
	calls := 0
	for _, loc := range methodLiteral.FindAllStringSubmatchIndex(src, -1) {
		name := src[loc[2]:loc[3]]
		at := fmt.Sprintf("%s:%d", file, strings.Count(src[:loc[0]], "\n")+1)
		m, declaredName := byName[name]
		if !declaredName && name != "workspace/executeCommand" {
			errs = append(errs, fmt.Sprintf("%s: %q is not a method package wire declares", at, name))
			continue
		}
		if declaredName && m.Dir != ClientRequest {
			continue // the plugin handles it; its params are the server's
		}
		rest := strings.TrimLeft(src[loc[1]:], " \t\n")
		if !strings.HasPrefix(rest, ",") {
			continue // named, not called (a handler table's key, a message)
		}
		calls++
		argAt := len(src) - len(strings.TrimLeft(rest[1:], " \t\n"))
		scope := enclosingFunction(src, loc[0], lua)
		params, ok := readValue(src, argAt, scope, lua)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: cannot read the params of %s: send an object literal, or a variable set to one in the same function", at, name))
			continue
		}
		if name == "workspace/executeCommand" {
			var cmdErrs []string
			m, cmdErrs = checkCommandCall(params, scope, src, lua)
			for _, e := range cmdErrs {
				errs = append(errs, at+": "+e)
			}
			if m.Name == "" {
				continue
			}
		} else {
			for _, e := range checkLiteral(name+" params", params, m.Params, scope, src, lua) {
				errs = append(errs, at+": "+e)
			}
		}
		for _, field := range resultReads(src, loc[0], argAt, scope, lua) {
			if !hasField(m.Result, field) {
				errs = append(errs, fmt.Sprintf("%s: reads %q of %s's result, which %v does not have", at, field, m.Name, m.Result))
			}
		}
	}
	return calls, errs
}

// checkCommandCall checks a workspace/executeCommand's params: the command
// is declared, its arguments fit. It returns the command's declaration.
func checkCommandCall(params value, scope [2]int, src string, lua bool) (Method, []string) {
	cmd, ok := params.keys["command"]
	if !ok || !cmd.isString {
		return Method{}, nil // a command the plugin names elsewhere (a variable)
	}
	var m Method
	for _, d := range MethodsOf(CommandRequest) {
		if d.Name == cmd.text {
			m = d
		}
	}
	if m.Name == "" {
		return Method{}, []string{fmt.Sprintf("%q is not a command package wire declares", cmd.text)}
	}
	args, ok := params.keys["arguments"]
	if !ok {
		return m, nil
	}
	list, ok := resolve(args, scope, src, lua)
	if !ok {
		return m, []string{fmt.Sprintf("cannot read the arguments of %s", m.Name)}
	}
	fields := Fields(m.Params)
	var errs []string
	for _, alt := range list {
		if len(alt.elems) > len(fields) {
			errs = append(errs, fmt.Sprintf("%s gets %d arguments, but takes %d: %s", m.Name, len(alt.elems), len(fields), m.Usage()))
			continue
		}
		for i, e := range alt.elems {
			if fields[i].Name == "" {
				errs = append(errs, checkLiteral(fmt.Sprintf("%s argument %d", m.Name, i+1), e, fields[i].Type, scope, src, lua)...)
			}
		}
	}
	return m, errs
}

// checkLiteral checks the keys a plugin gives an object (the literal, the
// literals a variable is set to, and the fields set on it) against t.
func checkLiteral(where string, v value, t reflect.Type, scope [2]int, src string, lua bool) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil // a map (a prompt's arguments) or a value
	}
	alts, ok := resolve(v, scope, src, lua)
	if !ok {
		return []string{fmt.Sprintf("cannot read %s", where)}
	}
	var errs []string
	for _, alt := range alts {
		keys := make([]string, 0, len(alt.keys))
		for k := range alt.keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := fieldOf(t, k)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: sends %q, which %v does not have", where, k, t))
				continue
			}
			if kv := alt.keys[k]; kv.isLiteral || kv.ident != "" {
				if sub, ok := resolve(kv, scope, src, lua); ok && len(sub) > 0 {
					errs = append(errs, checkLiteral(where+"."+k, kv, f.Type, scope, src, lua)...)
				}
			}
		}
	}
	return errs
}

func fieldOf(t reflect.Type, name string) (Field, bool) {
	for _, f := range Fields(t) {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

func hasField(t reflect.Type, name string) bool {
	_, ok := fieldOf(t, name)
	return ok
}

// value is what a plugin passes: an object or list literal (keys, elems),
// a string, a variable (ident), or something else (an expression).
type value struct {
	isLiteral bool // an object or a list written out
	isObject  bool
	keys      map[string]value
	elems     []value
	isString  bool
	text      string
	ident     string
}

// resolve is the literals v stands for: itself, or for a variable of the
// function the literals it is set to (each alternative of a `c and {..} or
// {..}`, `c ? {..} : {..}`), with the fields set on it (v.k = ...) added.
// ok is false when v is an expression none of that reads.
func resolve(v value, scope [2]int, src string, lua bool) ([]value, bool) {
	if v.isLiteral {
		return []value{v}, true
	}
	if v.ident == "" {
		return nil, false
	}
	body := src[scope[0]:scope[1]]
	var alts []value
	set := regexp.MustCompile(`(?m)(?:^|[^.\w])` + regexp.QuoteMeta(v.ident) + `\s*=\s*([^=\n][^\n]*)`)
	for _, mm := range set.FindAllStringSubmatchIndex(body, -1) {
		rhs := scope[0] + mm[2]
		for i := rhs; i < scope[0]+mm[3]; i++ {
			if c := src[i]; c == '{' || (!lua && c == '[') {
				if lit, end, ok := readLiteral(src, i, lua); ok {
					alts = append(alts, lit)
					i = end
				}
			}
		}
	}
	added := map[string]value{}
	field := regexp.MustCompile(`(?:^|[^.\w])` + regexp.QuoteMeta(v.ident) + `(?:\.(\w+)|\["(\w+)"\])\s*=[^=]`)
	for _, mm := range field.FindAllStringSubmatchIndex(body, -1) {
		var k string
		if mm[2] >= 0 {
			k = body[mm[2]:mm[3]]
		} else {
			k = body[mm[4]:mm[5]]
		}
		at := scope[0] + mm[1] - 1
		val, _ := readValue(src, len(src)-len(strings.TrimLeft(src[at:], " \t")), scope, lua)
		added[k] = val
	}
	if len(alts) == 0 && len(added) == 0 {
		return nil, false
	}
	if len(alts) == 0 {
		alts = []value{{isLiteral: true, isObject: true, keys: map[string]value{}}}
	}
	for i := range alts {
		if alts[i].keys == nil {
			alts[i].keys = map[string]value{}
		}
		for k, val := range added {
			alts[i].keys[k] = val
		}
	}
	return alts, true
}

var identRe = regexp.MustCompile(`^[A-Za-z_][\w.]*`)

// readValue reads the value written at src[i:]: a literal, a string, a
// variable, or for Lua `function(n) return {..} end` the table it returns.
func readValue(src string, i int, scope [2]int, lua bool) (value, bool) {
	rest := src[i:]
	switch {
	case strings.HasPrefix(rest, "{") || (!lua && strings.HasPrefix(rest, "[")):
		v, _, ok := readLiteral(src, i, lua)
		return v, ok
	case strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, `"`):
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return value{}, false
		}
		return value{isString: true, text: rest[1 : end+1]}, true
	case lua && strings.HasPrefix(rest, "vim.empty_dict()"):
		// Lua's {} encodes as a JSON list; vim.empty_dict() is the object {}.
		return value{isLiteral: true, isObject: true, keys: map[string]value{}}, true
	case strings.HasPrefix(rest, "function"):
		ret := strings.Index(rest, "return")
		if ret < 0 {
			return value{}, false
		}
		j := i + ret + len("return")
		j += len(src[j:]) - len(strings.TrimLeft(src[j:], " \t\n"))
		return readValue(src, j, scope, lua)
	}
	id := identRe.FindString(rest)
	if id == "" {
		return value{}, false
	}
	after := strings.TrimLeft(rest[len(id):], " \t")
	if strings.HasPrefix(after, "(") || strings.Contains(id, ".") {
		return value{text: id}, false // a call or a field: not read
	}
	return value{ident: id}, true
}

// readLiteral reads the object or list literal opening at src[i] and
// returns it and the index of its closing bracket. A Lua table with
// `k = v` entries is an object, one of bare values a list.
func readLiteral(src string, i int, lua bool) (value, int, bool) {
	end := closing(src, i)
	if end < 0 {
		return value{}, 0, false
	}
	inner := src[i+1 : end]
	v := value{isLiteral: true, isObject: src[i] == '{', keys: map[string]value{}}
	for _, part := range splitTop(inner) {
		p := strings.TrimSpace(part)
		if p == "" {
			continue
		}
		off := i + 1 + strings.Index(inner, part) + (len(part) - len(strings.TrimLeft(part, " \t\n")))
		k, valAt := entryKey(p, lua)
		if k == "" || src[i] == '[' {
			ev, _ := readValue(src, off, [2]int{}, lua)
			v.elems = append(v.elems, ev)
			continue
		}
		if strings.HasPrefix(k, "...") {
			continue
		}
		if valAt < 0 { // shorthand { prompt }
			v.keys[k] = value{ident: k}
			continue
		}
		j := off + valAt
		j += len(src[j:]) - len(strings.TrimLeft(src[j:], " \t\n"))
		ev, _ := readValue(src, j, [2]int{}, lua)
		v.keys[k] = ev
	}
	if lua && len(v.keys) == 0 && len(v.elems) > 0 {
		v.isObject = false
	}
	return v, end, true
}

var (
	jsKey  = regexp.MustCompile(`^(?:(\w+)|'(\w+)'|"(\w+)")\s*(:)?`)
	luaKey = regexp.MustCompile(`^(?:(\w+)|\["(\w+)"\])\s*(=)?`)
)

// entryKey is the key of an object entry and where its value starts (-1
// for JS shorthand); "" for a list element.
func entryKey(p string, lua bool) (string, int) {
	if strings.HasPrefix(p, "...") {
		return "...", -1
	}
	if lua {
		m := luaKey.FindStringSubmatch(p)
		if m == nil || m[3] == "" || strings.HasPrefix(p[len(m[0]):], "=") {
			return "", 0
		}
		return m[1] + m[2], len(m[0])
	}
	m := jsKey.FindStringSubmatch(p)
	if m == nil {
		return "", 0
	}
	k := m[1] + m[2] + m[3]
	if m[4] == "" {
		if len(strings.TrimSpace(p)) == len(k) {
			return k, -1
		}
		return "", 0
	}
	return k, len(m[0])
}

// resultReads are the result fields a call's code reads: JavaScript's
// `const {a, b} = await ...` and `x = await ...` then x.field; Lua's
// callback `function(err, res)` (or `function(res)`) then res.field.
func resultReads(src string, callAt, argAt int, scope [2]int, lua bool) []string {
	var fields []string
	var name string
	var body string
	if !lua {
		line := src[strings.LastIndexByte(src[:callAt], '\n')+1 : callAt]
		if m := regexp.MustCompile(`\{([\w\s,]+)\}\s*=\s*await\s+[\w.]+\($`).FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			for _, f := range strings.Split(m[1], ",") {
				fields = append(fields, strings.TrimSpace(f))
			}
			return fields
		}
		m := regexp.MustCompile(`(\w+)\s*=\s*await\s+[\w.]+\($`).FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			return nil
		}
		name, body = m[1], src[callAt:scope[1]]
	} else {
		end := closingArg(src, argAt)
		if end < 0 {
			return nil
		}
		rest := strings.TrimLeft(src[end:], " \t\n,")
		m := regexp.MustCompile(`^function\s*\(\s*(\w+)\s*(?:,\s*(\w+))?`).FindStringSubmatch(rest)
		if m == nil {
			return nil
		}
		// An LSP handler is function(err, result); a plugin's own wrapper
		// (mcp.lua's request) calls back with the result alone.
		line := src[strings.LastIndexByte(src[:callAt], '\n')+1 : callAt]
		name = m[1]
		if strings.Contains(line, "lsp.request(") || strings.Contains(line, ":request(") {
			name = m[2]
		}
		if name == "" {
			return nil
		}
		start := len(src) - len(rest)
		body = src[start : start+luaBlockEnd(rest)]
	}
	seen := map[string]bool{}
	for _, mm := range regexp.MustCompile(`(?:^|[^.\w])`+name+`\.(\w+)`).FindAllStringSubmatch(body, -1) {
		if !seen[mm[1]] {
			seen[mm[1]] = true
			fields = append(fields, mm[1])
		}
	}
	return fields
}

// closingArg is the index just after the argument starting at src[i].
func closingArg(src string, i int) int {
	depth := 0
	for j := i; j < len(src); j++ {
		switch c := src[j]; c {
		case '{', '[', '(':
			if k := closing(src, j); k > 0 {
				j = k
				if depth == 0 {
					return j + 1
				}
			}
		case ',', ')':
			return j
		case '\'', '"':
			j = stringEnd(src, j)
		}
	}
	return -1
}

// luaBlockEnd is the length of the Lua function starting rest, to its end.
func luaBlockEnd(rest string) int {
	depth := 0
	word := regexp.MustCompile(`\b(function|if|for|while|end)\b`)
	for _, m := range word.FindAllStringIndex(rest, -1) {
		if rest[m[0]:m[1]] == "end" {
			depth--
			if depth == 0 {
				return m[1]
			}
		} else {
			depth++
		}
	}
	return len(rest)
}

// enclosingFunction is the span of the function around src[i]: in
// JavaScript the innermost block that is a function's body (a function,
// an arrow function, a method); in Lua the top-level function, from the
// last line that starts at column 0 and opens a function to the next line
// at column 0 that closes one.
func enclosingFunction(src string, i int, lua bool) [2]int {
	if !lua {
		return jsFunctionBody(src, i)
	}
	start := 0
	for _, m := range regexp.MustCompile(`(?m)^\S[^\n]*\bfunction\b`).FindAllStringIndex(src[:i], -1) {
		start = m[0]
	}
	end := len(src)
	if m := regexp.MustCompile(`(?m)^(\}|end\b)`).FindStringIndex(src[i:]); m != nil {
		end = i + m[1]
	}
	return [2]int{start, end}
}

// closing is the index of the bracket closing the one at src[i], strings
// skipped; -1 when it never closes.
func closing(src string, i int) int {
	open := src[i]
	shut := map[byte]byte{'{': '}', '[': ']', '(': ')'}[open]
	depth := 0
	for j := i; j < len(src); j++ {
		switch c := src[j]; c {
		case '\'', '"', '`':
			j = stringEnd(src, j)
		case open:
			depth++
		case shut:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitTop splits s on the commas outside brackets and strings.
func splitTop(s string) []string {
	var parts []string
	depth, last := 0, 0
	for j := 0; j < len(s); j++ {
		switch c := s[j]; c {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		case '\'', '"', '`':
			j = stringEnd(s, j)
		case ',':
			if depth == 0 {
				parts = append(parts, s[last:j])
				last = j + 1
			}
		}
	}
	return append(parts, s[last:])
}

// blankComments replaces comments by spaces (lines kept), strings skipped.
func blankComments(src string, lua bool) string {
	b := []byte(src)
	for j := 0; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\'' || c == '"' || (!lua && c == '`'):
			j = stringEnd(src, j)
		case lua && c == '-' && j+1 < len(b) && b[j+1] == '-',
			!lua && c == '/' && j+1 < len(b) && b[j+1] == '/':
			for j < len(b) && b[j] != '\n' {
				b[j] = ' '
				j++
			}
		case !lua && c == '/' && j+1 < len(b) && b[j+1] == '*':
			for j+1 < len(b) && !(b[j] == '*' && b[j+1] == '/') {
				if b[j] != '\n' {
					b[j] = ' '
				}
				j++
			}
			if j+1 < len(b) {
				b[j], b[j+1] = ' ', ' '
			}
		}
	}
	return string(b)
}

// jsHeader is the text before a '{' that opens a function's body.
var jsHeader = regexp.MustCompile(`(?:\bfunction\b[^{}]*\)|=>|^\s*(?:async\s+)?(?:static\s+)?([A-Za-z_$][\w$]*)\s*\([^()]*\))\s*$`)

// jsFunctionBody is the innermost function body around src[i] in
// JavaScript (the whole file at top level).
func jsFunctionBody(src string, i int) [2]int {
	var stack []int
	best := [2]int{0, len(src)}
	for j := 0; j < len(src); j++ {
		switch c := src[j]; c {
		case '\'', '"', '`':
			j = stringEnd(src, j)
		case '{':
			stack = append(stack, j)
		case '}':
			if len(stack) == 0 {
				continue
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if open < i && i < j && open >= best[0] {
				header := src[strings.LastIndexByte(src[:open], '\n')+1 : open]
				if m := jsHeader.FindStringSubmatch(header); m != nil && !jsKeywords[m[1]] {
					best = [2]int{open, j + 1}
				}
			}
		}
	}
	return best
}

var jsKeywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true}

// stringEnd is the index of the quote closing the string that opens at
// src[i]: escapes skipped, and in a JavaScript template each ${...} read
// as code, templates inside it too. The end of src when it never closes.
func stringEnd(src string, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\':
			j++
		case c == q:
			return j
		case q == '`' && c == '$' && j+1 < len(src) && src[j+1] == '{':
			depth := 0
			for j++; j < len(src); j++ {
				switch src[j] {
				case '\'', '"', '`':
					j = stringEnd(src, j)
				case '{':
					depth++
				case '}':
					depth--
				}
				if depth == 0 {
					break
				}
			}
		case q != '`' && c == '\n':
			return j
		}
	}
	return len(src)
}
