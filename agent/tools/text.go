package tools

import (
	"fmt"
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

// ByteSize is n bytes for a person: 512 bytes, 3.4 KB, 50.0 MB.
func ByteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
