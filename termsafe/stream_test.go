package termsafe

import (
	"strings"
	"testing"
)

// TestStreamStripsSequencesCutBetweenPieces feeds hostile text in every
// split into pieces of a few bytes: the output is the text around the
// sequences, with no payload of theirs and no control byte.
func TestStreamStripsSequencesCutBetweenPieces(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"},
		{"a\x1b]0;owned\x1b\\b", "ab"},
		{"a\x1b[2Jb\x1b[38;5;196mc", "abc"},
		{"a\u009b31mb", "ab"},
		{"plain text, no escapes\n", "plain text, no escapes\n"},
		{"done\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\u009b31m\x07 end", "done end"},
	}
	for _, tc := range cases {
		for size := 1; size <= 9; size++ {
			var s Stream
			var out strings.Builder
			for rest := tc.in; rest != ""; {
				n := min(size, len(rest))
				out.WriteString(s.Strip(rest[:n]))
				rest = rest[n:]
			}
			if out.String() != tc.want {
				t.Errorf("pieces of %d bytes of %q gave %q, want %q", size, tc.in, out.String(), tc.want)
			}
		}
	}
}

// TestStreamBoundsWhatItHoldsBack checks that an escape sequence that never
// ends is not held back without limit, and that Reset drops it.
func TestStreamBoundsWhatItHoldsBack(t *testing.T) {
	var s Stream
	s.Strip("x\x1b]0;")
	for range 100 {
		if got := s.Strip(strings.Repeat("y", 100)); strings.ContainsAny(got, "\x1b\x07") {
			t.Fatalf("control byte in %q", got)
		}
	}
	if len(s.pending) > maxPending {
		t.Fatalf("holding back %d bytes, more than %d", len(s.pending), maxPending)
	}
	s.Strip("z\x1b[")
	s.Reset()
	if got := s.Strip("1mw"); got != "1mw" {
		t.Errorf("after Reset: %q", got)
	}
}
