package tools

import (
	"strings"
)

// Fence wraps text in a code fence longer than any backtick run inside it,
// so repo- or tool-authored text can never close the fence early.
func Fence(lang, text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}
