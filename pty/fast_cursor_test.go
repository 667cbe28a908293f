package pty

import (
	"strings"
	"testing"
)

// TestFastEmulatorReverseWrap checks BS and CUB with reverse wraparound
// on a 10×4 screen, as xterm (patch 383 and later) moves the cursor:
// mode 45 goes back over rows autowrap continued, mode 1045 over any row.
func TestFastEmulatorReverseWrap(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  string
		x, y  int
	}{
		{"off by default", "ab\r\ncd\r\b", "ab\ncd", 0, 1},
		{"45 onto a wrapped row", "\x1b[?45h0123456789ab\b\b\b", "0123456789\nab", 9, 0},
		{"45 stops at an unwrapped row", "\x1b[?45hab\r\ncd\b\b\b", "ab\ncd", 0, 1},
		{"45 stops where the wrapped line starts", "\x1b[?45h0123456789ab\r\n0123456789ab" + strings.Repeat("\b", 40), "0123456789\nab\n0123456789\nab", 0, 2},
		{"45 after EL ended the wrap", "\x1b[?45h0123456789ab\x1b[1;5H\x1b[K\x1b[2;1H\b", "0123\nab", 0, 1},
		{"45 needs autowrap", "\x1b[?45h0123456789ab\x1b[?7l\x1b[2;1H\b", "0123456789\nab", 0, 1},
		{"1045 onto any row", "\x1b[?1045hab\r\ncd\r\b", "ab\ncd", 9, 0},
		{"1045 from the top row to the bottom", "\x1b[?1045h\b", "", 9, 3},
		{"1045 inside the scroll region", "\x1b[?1045h\x1b[2;3r\x1b[2;1H\b", "", 9, 2},
		{"1045 above the scroll region", "\x1b[?1045h\x1b[2;3r\x1b[1;1H\b", "", 9, 3},
		{"1045 needs autowrap", "\x1b[?1045h\x1b[?7l\x1b[2;1H\b", "", 0, 1},
		{"CUB wraps too", "\x1b[?1045h\x1b[2;3H\x1b[5D", "", 7, 0},
		{"pending wrap is the first step", "\x1b[?45h0123456789\bX", "012345678X", 9, 0},
		{"pending wrap without reverse wrap", "0123456789\bX", "01234567X9", 9, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, tc.input)
			if got := screenText(e); got != tc.want {
				t.Errorf("screen %q, want %q", got, tc.want)
			}
			if c := e.Cursor(); c.X != tc.x || c.Y != tc.y {
				t.Errorf("cursor %d,%d, want %d,%d", c.X, c.Y, tc.x, tc.y)
			}
		})
	}
}
