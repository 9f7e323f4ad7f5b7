package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// conventionalTestFiles are the test files Go itself names by role rather
// than by subject: TestMain, examples, benchmarks spanning the package, and
// the checks that hold docs/ to the code.
var conventionalTestFiles = map[string]bool{
	"main_test.go": true, "example_test.go": true, "bench_test.go": true, "docs_test.go": true,
}

// MisnamedTestFiles lists the test files under root (relative paths) whose
// name does not say which source file they test: a test of foo.go lives in
// foo_test.go or foo_<topic>_test.go beside it, so a reader who opens
// foo.go finds its tests by name. Exempt are the conventional files
// (main_test.go, example_test.go, bench_test.go, docs_test.go), files that
// hold only helpers (no Test, Benchmark, Fuzz or Example function), and
// folders with no Go source of their own (the editor suites, whose subject
// is a Lua plugin or an editor's configuration).
func MisnamedTestFiles(root string) ([]string, error) {
	var bad []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, "_test.go") || conventionalTestFiles[name] {
			return nil
		}
		stems, err := sourceStems(filepath.Dir(path))
		if err != nil || len(stems) == 0 {
			return err
		}
		subject := strings.TrimSuffix(name, "_test.go")
		for _, s := range stems {
			if subject == s || strings.HasPrefix(subject, s+"_") {
				return nil
			}
		}
		if tests, err := hasTests(path); err != nil || !tests {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		bad = append(bad, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(bad)
	return bad, err
}

// sourceStems are the names, without .go, of dir's non-test Go files.
func sourceStems(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stems []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && n != "doc.go" {
			stems = append(stems, strings.TrimSuffix(n, ".go"))
		}
	}
	return stems, nil
}

// hasTests says whether a test file declares a Test, Benchmark, Fuzz or
// Example function.
func hasTests(path string) (bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return false, err
	}
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil {
			for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
				if strings.HasPrefix(fd.Name.Name, p) {
					return true, nil
				}
			}
		}
	}
	return false, nil
}
