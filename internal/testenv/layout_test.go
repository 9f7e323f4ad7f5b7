package testenv

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestTestFilesAreNamedAfterTheirSource(t *testing.T) {
	bad, err := MisnamedTestFiles(RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range bad {
		t.Errorf("%s: name a test file after the source file it tests (foo.go -> foo_test.go or foo_<topic>_test.go)", f)
	}
}

// The rule itself, on a made-up package: it must flag what it claims to.
func TestMisnamedTestFilesFlagsOnlyUnmatchedTests(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, "p", name), []byte("package p\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "p"), 0o755)
	write("loop.go", "")
	write("doc.go", "")
	write("loop_test.go", "func TestA(t *T) {}\n")
	write("loop_cancel_test.go", "func TestB(t *T) {}\n")
	write("main_test.go", "func TestMain(m *M) {}\n")
	write("helpers_test.go", "func helper() {}\n")
	write("cancel_test.go", "func TestC(t *T) {}\n")
	write("doc_test.go", "func TestD(t *T) {}\n")
	write("looping_test.go", "func BenchmarkE(b *B) {}\n")
	bad, err := MisnamedTestFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p/cancel_test.go", "p/doc_test.go", "p/looping_test.go"}
	if len(bad) != len(want) {
		t.Fatalf("flagged %v, want %v", bad, want)
	}
	for i := range want {
		if bad[i] != want[i] {
			t.Fatalf("flagged %v, want %v", bad, want)
		}
	}
}

// TestContributingNamesWhatExists keeps docs/contributing.md true of the
// tree: every file it names in code (`server/routes.go`, or a bare
// `harness_test.go`) exists, and every test it names (`TestX`) is a test
// function of the repository. A file moved or a test renamed fails here.
func TestContributingNamesWhatExists(t *testing.T) {
	root := RepoRoot()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "contributing.md"))
	if err != nil {
		t.Fatal(err)
	}
	bases := map[string]bool{}
	tests := map[string]bool{}
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		bases[d.Name()] = true
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
				tests[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	file := regexp.MustCompile(`^[\w./-]+\.(go|md|js|mjs|lua|toml|sh)$`)
	test := regexp.MustCompile(`^Test[A-Z]\w+$`)
	var files, names int
	for i, span := range strings.Split(string(doc), "`") {
		if i%2 == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(filepath.Base(span), "foo"): // a placeholder (foo.go, foo_test.go)
		case file.MatchString(span) && strings.Contains(span, "/"):
			files++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(span))); err != nil {
				t.Errorf("docs/contributing.md names %s, which is not in the tree", span)
			}
		case file.MatchString(span):
			files++
			if !bases[span] {
				t.Errorf("docs/contributing.md names %s, and no file of the tree is called so", span)
			}
		case test.MatchString(span):
			names++
			if !tests[span] {
				t.Errorf("docs/contributing.md names %s, which is no test of the repository", span)
			}
		}
	}
	if files < 20 || names < 5 {
		t.Fatalf("read %d file names and %d test names in docs/contributing.md, want its whole map", files, names)
	}
}
