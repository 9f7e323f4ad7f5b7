// Package textdiff renders the change between two texts as a unified diff
// with line numbers, the one rendering every card in a terminal or an
// editor without a diff view shows (agentls run and chat, Neovim, Helix).
// It is pure: no files, no terminal, no escaping (callers escape what
// they print).
package textdiff

import (
	"fmt"
	"strconv"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// MaxLines bounds the lines Unified returns; what is cut is counted in a
// last line, never dropped without a word (a card must not hide part of
// what it asks about while looking whole).
const MaxLines = 200

// maxCells bounds the table of the line-matching step; a bigger change is
// shown as the whole changed region removed and added, which is still
// exact, only less minimal.
const maxCells = 1 << 21

// op is one line of the diff: kept (' '), removed ('-') or added ('+').
type op struct {
	kind     byte
	old, new int // 1-based line numbers; 0 where the line is not on that side
	text     string
}

// Unified is the change from old to new as hunks of a unified diff: a
// "@@ -a,b +c,d @@" header, then each line with its number in the old and
// the new text and a marker (' ', '-', '+'), Context unchanged lines
// around each change. A last line without a newline is followed by
// "\ No newline at end of file". "(no change)" when the texts are equal.
func Unified(old, new string) string { return unified(old, new, MaxLines) }

// unified is Unified cut after limit lines.
func unified(old, new string, limit int) string {
	ops := diffLines(splitLines(old), splitLines(new))
	hunks := group(ops)
	if len(hunks) == 0 {
		return "(no change)\n"
	}
	width := 1
	for _, o := range ops {
		width = max(width, len(strconv.Itoa(max(o.old, o.new))))
	}
	var b strings.Builder
	lines, cut := 0, 0
	emit := func(s string) {
		if lines >= limit {
			cut++
			return
		}
		b.WriteString(s)
		lines++
	}
	for _, h := range hunks {
		emit(header(h))
		for _, o := range h {
			num := func(n int) string {
				if n == 0 {
					return strings.Repeat(" ", width)
				}
				return fmt.Sprintf("%*d", width, n)
			}
			text, nl := strings.CutSuffix(o.text, "\n")
			emit(fmt.Sprintf("%s %s %c%s\n", num(o.old), num(o.new), o.kind, text))
			if !nl {
				emit(`\ No newline at end of file` + "\n")
			}
		}
	}
	if cut > 0 {
		fmt.Fprintf(&b, "... %d more line(s) of this diff not shown\n", cut)
	}
	return b.String()
}

// Added is Unified of a file that does not exist yet: every line added.
func Added(new string) string { return Unified("", new) }

// header is a hunk's "@@ -start,count +start,count @@" line.
func header(h []op) string {
	var os, oc, ns, nc int
	for _, o := range h {
		if o.old != 0 {
			if os == 0 {
				os = o.old
			}
			oc++
		}
		if o.new != 0 {
			if ns == 0 {
				ns = o.new
			}
			nc++
		}
	}
	// An empty side starts at the line before it, as diff(1) writes it.
	if oc == 0 {
		os = firstNumber(h, func(o op) int { return o.new }) - 1
		os = max(os, 0)
	}
	if nc == 0 {
		ns = firstNumber(h, func(o op) int { return o.old }) - 1
		ns = max(ns, 0)
	}
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@\n", os, oc, ns, nc)
}

func firstNumber(h []op, side func(op) int) int {
	for _, o := range h {
		if n := side(o); n != 0 {
			return n
		}
	}
	return 1
}

// splitLines cuts s after each newline; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines matches a against b: the common head and tail first, then the
// longest common subsequence of what is left.
func diffLines(a, b []string) []op {
	var ops []op
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', i + 1, i + 1, a[i]})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for k := suf; k > 0; k-- {
		i, j := len(a)-k, len(b)-k
		ops = append(ops, op{' ', i + 1, j + 1, a[i]})
	}
	return ops
}

// middle diffs the changed region a, b (line offsets ao, bo): a longest
// common subsequence when the table fits, else all of a removed and all
// of b added.
func middle(a, b []string, ao, bo int) []op {
	var ops []op
	if len(a)*len(b) > maxCells {
		for i, l := range a {
			ops = append(ops, op{'-', ao + i + 1, 0, l})
		}
		for j, l := range b {
			ops = append(ops, op{'+', 0, bo + j + 1, l})
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:], b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', ao + i + 1, bo + j + 1, a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			// Removed lines before added ones, as diff(1) prints them.
			ops = append(ops, op{'-', ao + i + 1, 0, a[i]})
			i++
		default:
			ops = append(ops, op{'+', 0, bo + j + 1, b[j]})
			j++
		}
	}
	return ops
}

// group cuts ops into hunks: each change with Context kept lines around
// it, changes closer than 2*Context lines sharing one hunk.
func group(ops []op) [][]op {
	var hunks [][]op
	start, end := -1, -1 // the current hunk is ops[start:end]
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		lo, hi := max(i-Context, 0), min(i+Context+1, len(ops))
		if start >= 0 && lo <= end {
			end = max(end, hi)
			continue
		}
		if start >= 0 {
			hunks = append(hunks, ops[start:end])
		}
		start, end = lo, hi
	}
	if start >= 0 {
		hunks = append(hunks, ops[start:end])
	}
	return hunks
}
