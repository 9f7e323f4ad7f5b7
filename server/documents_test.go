package server

import (
	"testing"
)

func TestOffsetCountsUTF16CodeUnits(t *testing.T) {
	text := "a€b\n😀x\nlast"
	tests := []struct {
		name string
		pos  position
		want int
	}{
		{"start of text", position{Line: 0, Character: 0}, 0},
		{"after a one-unit rune", position{Line: 0, Character: 1}, 1},
		{"a BMP rune of three bytes is one unit", position{Line: 0, Character: 2}, 4},
		{"past the end of a line clamps to its end", position{Line: 0, Character: 99}, 5},
		{"an astral rune is two units", position{Line: 1, Character: 2}, 10},
		{"after the astral rune", position{Line: 1, Character: 3}, 11},
		{"last line", position{Line: 2, Character: 4}, 16},
		{"a line past the end clamps to the end", position{Line: 7, Character: 0}, len(text)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := offset(text, tt.pos)
			if err != nil || got != tt.want {
				t.Errorf("offset(%v) = %d, %v; want %d", tt.pos, got, err, tt.want)
			}
		})
	}
	if _, err := offset(text, position{Line: -1, Character: 0}); err == nil {
		t.Error("a negative position must be an error")
	}
}

func TestEndPosition(t *testing.T) {
	tests := []struct {
		name, text string
		want       position
	}{
		{"empty", "", position{Line: 0, Character: 0}},
		{"no newline", "ab😀", position{Line: 0, Character: 4}},
		{"trailing newline", "ab\n", position{Line: 1, Character: 0}},
		{"two lines", "ab\ncd€", position{Line: 1, Character: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := endPosition(tt.text); got != tt.want {
				t.Errorf("endPosition(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestDocumentChanges(t *testing.T) {
	r := func(l1, c1, l2, c2 int) *lspRange {
		return &lspRange{Start: position{Line: l1, Character: c1}, End: position{Line: l2, Character: c2}}
	}
	tests := []struct {
		name    string
		changes []contentChange
		want    string
		wantErr bool
	}{
		{"insert", []contentChange{{Range: r(1, 0, 1, 0), Text: "new\n"}}, "héllo\nnew\nworld\n", false},
		{"replace after a multibyte rune", []contentChange{{Range: r(0, 2, 0, 4), Text: "LL"}}, "héLLo\nworld\n", false},
		{"delete a line", []contentChange{{Range: r(0, 0, 1, 0), Text: ""}}, "world\n", false},
		{"changes apply in order", []contentChange{{Range: r(0, 0, 0, 0), Text: "a\n"}, {Range: r(1, 0, 1, 1), Text: "H"}}, "a\nHéllo\nworld\n", false},
		{"no range replaces the whole text", []contentChange{{Text: "all new"}}, "all new", false},
		{"a range that ends before it starts is refused", []contentChange{{Range: r(1, 0, 0, 0), Text: "x"}}, "héllo\nworld\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d documents
			d.open("file:///w/a.txt", 1, "héllo\nworld\n")
			err := d.change("file:///w/./a.txt", 2, tt.changes)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			doc, _ := d.byPath("/w/a.txt")
			if doc.text != tt.want {
				t.Errorf("text = %q, want %q", doc.text, tt.want)
			}
		})
	}
}

func TestUntitledDocumentsAreKeptByURI(t *testing.T) {
	var d documents
	d.open("untitled:Untitled-1", 1, "scratch")
	if err := d.change("untitled:Untitled-1", 2, []contentChange{{Text: "changed"}}); err != nil {
		t.Fatal(err)
	}
	doc, ok := d.get("untitled:Untitled-1")
	if !ok || doc.text != "changed" || doc.path != "" {
		t.Errorf("untitled doc = %+v, %v", doc, ok)
	}
	if err := d.change("file:///not/open.go", 2, nil); err == nil {
		t.Error("didChange for a document that is not open must be an error")
	}
}

func TestDirective(t *testing.T) {
	tests := []struct {
		line, want string
		ok         bool
	}{
		{"// agent: add error handling here", "add error handling here", true},
		{"# agent: write tests", "write tests", true},
		{"/* agent: explain */", "explain", true},
		{"x := 1 // agent:", "", false},
		{"useragent: not a directive", "", false},
		{"nothing here", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, ok := directive(tt.line)
			if got != tt.want || ok != tt.ok {
				t.Errorf("directive(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// BenchmarkIncrementalChange is one keystroke near the end of a 5000-line
// buffer: didChange runs on the read loop, so its cost delays every message.
func BenchmarkIncrementalChange(b *testing.B) {
	var d documents
	line := "\tfmt.Println(\"héllo, 世界\") // a line of ordinary Go code\n"
	text := ""
	for i := 0; i < 5000; i++ {
		text += line
	}
	d.open("file:///w/big.go", 1, text)
	r := &lspRange{Start: position{Line: 4000, Character: 10}, End: position{Line: 4000, Character: 10}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.change("file:///w/big.go", int32(i+2), []contentChange{{Range: r, Text: "x"}}); err != nil {
			b.Fatal(err)
		}
	}
}
