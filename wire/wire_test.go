package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestEveryWireValueIsDocumented reads this package's constants, in every
// file of it (methods, event types, statuses, stop reasons, approval kinds
// and options, task, approval and server states, tool kinds, origins,
// policies) and fails when docs/protocol.md does
// not name one of them in backquotes, so a value added to the wire without
// documentation fails here.
func TestEveryWireValueIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var decls []ast.Decl
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, f.Decls...)
	}
	n := 0
	for _, d := range decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				val, _ := strconv.Unquote(lit.Value)
				n++
				// A prefix (choice_) is named with what follows it (`choice_N`).
				prefix := strings.HasSuffix(val, "_") && strings.Contains(string(doc), "`"+val)
				if !prefix && !strings.Contains(string(doc), "`"+val+"`") && !strings.Contains(string(doc), "`"+val+" ") {
					t.Errorf("docs/protocol.md does not name %q (a value of package wire)", val)
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("read %d wire constants, want the whole set (40 or more)", n)
	}
}

// TestEveryWireFieldIsDocumented reads the JSON names of every exported
// struct type's fields in this package (a field's json tag, its Go name when
// it has none; "-" and embedded structs are skipped, the embedded type is
// read itself) and fails naming each one docs/protocol.md never writes. A
// struct with no json tag at all (Image, FileDiff: what the core hands the
// ACP front behind a `json:"-"` field) is not a JSON shape and is skipped.
// The doc writes a field as code: in backquotes (`policyReason`, or inside a
// shape such as `{taskId, sessionId?}`), or as a key of a JSON example. So
// a field counts as named only when it is a whole word of code: a word of
// letters, digits, '_', '-' and '/' (so `textDocument/didOpen` does not
// name textDocument, nor `server-filesystem` server), with a '.' splitting
// a path (`elicitation.url` names url). Prose never counts.
func TestEveryWireFieldIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	named := codeWords(string(doc))
	fields, err := wireJSONFields()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !named[name] {
			t.Errorf("docs/protocol.md does not name the field %q (of %s in package wire)", name, strings.Join(fields[name], ", "))
		}
	}
	if len(names) < 80 {
		t.Fatalf("read %d JSON field names, want the whole set (80 or more)", len(names))
	}
}

// TestWireDocMatchCountsWholeWordsOfCodeOnly holds the matching of the field
// test to what it promises, so a loosened matcher fails here.
func TestWireDocMatchCountsWholeWordsOfCodeOnly(t *testing.T) {
	words := codeWords("prose policyReason, `{taskId, sessionId?}` `elicitation.url` `textDocument/didOpen`\n" +
		"`server-filesystem` `headerNamesX`\n```json\n{\"stderrTail\": \"\"}\n```\n")
	for w, want := range map[string]bool{
		"taskId": true, "sessionId": true, "url": true, "elicitation": true, "stderrTail": true,
		"textDocument/didOpen": true, "policyReason": false, "textDocument": false,
		"server": false, "headerNames": false, "prose": false,
	} {
		if words[w] != want {
			t.Errorf("codeWords[%q] = %v, want %v", w, words[w], want)
		}
	}
}

// codeWords is the set of words in doc's code: fenced blocks and backquoted
// spans outside them.
func codeWords(doc string) map[string]bool {
	var code []string
	for i, part := range strings.Split(doc, "```") {
		if i%2 == 1 {
			code = append(code, part)
			continue
		}
		for j, span := range strings.Split(part, "`") {
			if j%2 == 1 {
				code = append(code, span)
			}
		}
	}
	words := map[string]bool{}
	word := regexp.MustCompile(`[A-Za-z0-9_/-]+`)
	for _, c := range code {
		for _, w := range word.FindAllString(c, -1) {
			words[w] = true
		}
	}
	return words
}

// wireJSONFields maps each JSON field name of this package's exported
// struct types to the types that have it.
func wireJSONFields() (map[string][]string, error) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		return nil, err
	}
	fields := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			if !hasJSONTag(st) {
				return true
			}
			for _, fl := range st.Fields.List {
				tag := ""
				if fl.Tag != nil {
					raw, _ := strconv.Unquote(fl.Tag.Value)
					tag, _, _ = strings.Cut(reflect.StructTag(raw).Get("json"), ",")
				}
				if tag == "-" || (len(fl.Names) == 0 && fl.Tag == nil) {
					continue
				}
				for _, id := range fl.Names {
					if !id.IsExported() {
						continue
					}
					jsonName := tag
					if jsonName == "" {
						jsonName = id.Name
					}
					fields[jsonName] = append(fields[jsonName], ts.Name.Name+"."+id.Name)
				}
			}
			return true
		})
	}
	return fields, nil
}

// hasJSONTag says whether any field of st has a json tag.
func hasJSONTag(st *ast.StructType) bool {
	for _, fl := range st.Fields.List {
		if fl.Tag != nil {
			raw, _ := strconv.Unquote(fl.Tag.Value)
			if _, ok := reflect.StructTag(raw).Lookup("json"); ok {
				return true
			}
		}
	}
	return false
}

func TestFinalStatuses(t *testing.T) {
	for s, want := range map[ToolStatus]bool{
		StatusPending: false, StatusAwaitingApproval: false, StatusRunning: false,
		StatusCompleted: true, StatusFailed: true, StatusDenied: true, StatusCancelled: true,
	} {
		if s.Final() != want {
			t.Errorf("%s.Final() = %v, want %v", s, !want, want)
		}
	}
}
