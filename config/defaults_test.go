package config

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

// zeroOptionDefaults are the files outside config that may name a default
// of config: mcp.Options, whose zero values are documented to mean the
// config's defaults for a Registry made without a config (tests, probes).
var zeroOptionDefaults = map[string]bool{"mcp/registry.go": true}

// TestOnlyConfigKnowsADefault holds the rule that a default of
// docs/config.md is declared once, in defaults.go, and applied only there
// (WithDefaults and the Effective* methods): no other package declares a
// constant or variable of the same name, and none but the files of
// zeroOptionDefaults names config.DefaultX to apply it again.
func TestOnlyConfigKnowsADefault(t *testing.T) {
	defaults := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "defaults.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Default") {
						defaults[n.Name] = true
					}
				}
			}
		}
	}
	if len(defaults) < 10 {
		t.Fatalf("found %d Default constants in defaults.go, want the whole list of docs/config.md's defaults", len(defaults))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); rel == "config" || n == "node_modules" || n == "testdata" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		configName := ""
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/agentls/agentls/config" {
				configName = "config"
				if imp.Name != nil {
					configName = imp.Name.Name
				}
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for _, name := range n.Names {
					if defaults[name.Name] {
						t.Errorf("%s declares %s again: the default is config.%s's alone", rel, name.Name, name.Name)
					}
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && configName != "" && x.Name == configName && defaults[n.Sel.Name] && !zeroOptionDefaults[rel] {
					t.Errorf("%s applies config.%s itself: take the value from the config (WithDefaults, or an Effective* method of config)", rel, n.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
