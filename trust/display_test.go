package trust

import "testing"

func TestVisibleEscapesOnlyWhatCannotBeSeen(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a plain name is unchanged", "read_text_file", "read_text_file"},
		{"spaces and punctuation are unchanged", "get file (v2)", "get file (v2)"},
		{"a terminal escape is escaped", "a\x1b[2Kb", `$'a\x1b[2Kb'`},
		{"a newline is escaped", "a\nb", `$'a\nb'`},
		{"a bidi override is escaped", "a\u202eb", `$'a\u202eb'`},
		{"a zero-width space is escaped", "a\u200bb", `$'a\u200bb'`},
		{"invalid UTF-8 is escaped byte by byte", "a\xffb", `$'a\xffb'`},
		{"the empty name is shown as quotes", "", "''"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Visible(tc.in); got != tc.want {
				t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestByteSizeReadsAtAGlance(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KB"}, {1535, "1 KB"}, {1536, "2 KB"},
		{1024*1024 - 1, "1024 KB"}, {1024 * 1024, "1.0 MB"}, {50 << 20, "50.0 MB"},
	} {
		if got := ByteSize(tt.n); got != tt.want {
			t.Errorf("ByteSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
