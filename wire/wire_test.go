package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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
