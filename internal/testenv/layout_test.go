package testenv

import (
	"os"
	"path/filepath"
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
