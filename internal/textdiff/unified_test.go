package textdiff

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	ten := numbered(1, 10)
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"one line changed in the middle shows three lines of context with both numbers",
			ten, strings.Replace(ten, "line 5\n", "line five\n", 1),
			"@@ -2,7 +2,7 @@\n" +
				" 2  2  line 2\n 3  3  line 3\n 4  4  line 4\n" +
				" 5    -line 5\n    5 +line five\n" +
				" 6  6  line 6\n 7  7  line 7\n 8  8  line 8\n"},
		{"a new file is every line added",
			"", "a\nb\n",
			"@@ -0,0 +1,2 @@\n  1 +a\n  2 +b\n"},
		{"a line added at the end of a file without a final newline",
			"a\nb", "a\nb\nc\n",
			"@@ -1,2 +1,3 @@\n1 1  a\n2   -b\n\\ No newline at end of file\n  2 +b\n  3 +c\n"},
		{"a deleted line keeps the numbers of both sides apart",
			"a\nb\nc\n", "a\nc\n",
			"@@ -1,3 +1,2 @@\n1 1  a\n2   -b\n3 2  c\n"},
		{"equal texts", ten, ten, "(no change)\n"},
		{"changes far apart are two hunks",
			numbered(1, 20), strings.Replace(strings.Replace(numbered(1, 20), "line 2\n", "two\n", 1), "line 19\n", "nineteen\n", 1),
			"@@ -1,5 +1,5 @@\n" +
				" 1  1  line 1\n 2    -line 2\n    2 +two\n 3  3  line 3\n 4  4  line 4\n 5  5  line 5\n" +
				"@@ -16,5 +16,5 @@\n" +
				"16 16  line 16\n17 17  line 17\n18 18  line 18\n19    -line 19\n   19 +nineteen\n20 20  line 20\n"},
		{"changes close together share a hunk",
			ten, strings.Replace(strings.Replace(ten, "line 3\n", "three\n", 1), "line 8\n", "eight\n", 1),
			"@@ -1,10 +1,10 @@\n" +
				" 1  1  line 1\n 2  2  line 2\n 3    -line 3\n    3 +three\n 4  4  line 4\n 5  5  line 5\n" +
				" 6  6  line 6\n 7  7  line 7\n 8    -line 8\n    8 +eight\n 9  9  line 9\n10 10  line 10\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified(tc.old, tc.new); got != tc.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestUnifiedCutsLongDiffsAndSaysHowMuch: a card never looks whole while
// hiding part of the change.
func TestUnifiedCutsLongDiffsAndSaysHowMuch(t *testing.T) {
	got := Unified("", numbered(1, 500))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != MaxLines+1 {
		t.Fatalf("%d lines, want %d and a last line saying what was cut", len(lines), MaxLines+1)
	}
	if want := fmt.Sprintf("... %d more line(s) of this diff not shown", 501-MaxLines); lines[MaxLines] != want {
		t.Errorf("last line %q, want %q", lines[MaxLines], want)
	}
}

// TestUnifiedHunksRebuildTheNewText applies the hunks Unified prints to
// the old text, for random edits, and checks they give the new text: the
// numbers and markers say exactly what changes, including past the table
// size where the changed region is shown whole.
func TestUnifiedHunksRebuildTheNewText(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "c", "func x() {", "}", "", "return nil"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.Intn(len(words))] + "\n")
		}
		return b.String()
	}
	for i := range 300 {
		old, new := text(r.Intn(40)), text(r.Intn(40))
		if i%3 == 0 { // small edits of one text, the usual card
			new = old
			for range 1 + r.Intn(3) {
				ls := splitLines(new)
				k := r.Intn(len(ls) + 1)
				new = strings.Join(ls[:k], "") + text(r.Intn(3)) + strings.Join(ls[min(k+r.Intn(3), len(ls)):], "")
			}
		}
		if i == 299 { // past maxCells
			old, new = text(2000), text(2000)
		}
		d := unified(old, new, 1<<30)
		if got := apply(t, old, new, d); got != new {
			t.Fatalf("case %d: applying\n%s\nto %q gives %q, want %q", i, d, old, got, new)
		}
	}
}

// apply rebuilds the new text from old and a diff of Unified (no cut).
func apply(t *testing.T, old, new, d string) string {
	t.Helper()
	if d == "(no change)\n" {
		return old
	}
	ol := splitLines(old)
	width := len(strconv.Itoa(max(len(ol), len(splitLines(new)), 1)))
	var out []string
	next, last := 0, byte(0) // the next old line (0-based) not yet copied; the last line's marker
	for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		if strings.HasPrefix(l, "@@ ") {
			var os, oc, ns, nc int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &os, &oc, &ns, &nc); err != nil {
				t.Fatalf("header %q: %v", l, err)
			}
			start := os - 1
			if oc == 0 {
				start = os
			}
			out = append(out, ol[next:start]...)
			next = start
			continue
		}
		if l == `\ No newline at end of file` {
			if last == '+' {
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
			}
			continue
		}
		if len(l) < 2*width+3 {
			t.Fatalf("line %q is shorter than its columns", l)
		}
		oldNum := strings.TrimSpace(l[:width])
		marker, text := l[2*width+2], l[2*width+3:]
		last = marker
		switch marker {
		case ' ', '-':
			if n, _ := strconv.Atoi(oldNum); n != next+1 || strings.TrimSuffix(ol[next], "\n") != text {
				t.Fatalf("line %q is not old line %d %q", l, next+1, ol[next])
			}
			if marker == ' ' {
				out = append(out, ol[next])
			}
			next++
		case '+':
			out = append(out, text+"\n")
		default:
			t.Fatalf("line %q: marker %q", l, marker)
		}
	}
	return strings.Join(append(out, ol[next:]...), "")
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}
