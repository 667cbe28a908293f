package pty

import "testing"

// TestFastEmulatorMargins checks left and right margins (DECLRMM,
// DECSLRM) on a 10×4 screen; most cases set the margins to columns 3–6.
func TestFastEmulatorMargins(t *testing.T) {
	const (
		on   = "\x1b[?69h\x1b[3;6s"
		fill = "1111111111\r\n2222222222\r\n3333333333\r\n4444444444"
		row  = "0123456789"
	)
	cases := []struct {
		name  string
		input string
		want  string
		x, y  int
	}{
		{"DECSLRM needs DECLRMM", "\x1b[2;3H\x1b[3;6s\x1b[HX\x1b[uY", "X\n  Y", 3, 1},
		{"DECSLRM homes the cursor", "\x1b[?69h\x1b[3;3H\x1b[3;6s", "", 0, 0},
		{"DECSLRM ignores a one-column area", "\x1b[?69h\x1b[3;3H\x1b[4;4s\x1b[1;3H\x1b[9C", "", 9, 0},
		{"autowrap at the right margin", on + "\x1b[1;3Habcdefg", "  abcd\n  efg", 5, 1},
		{"text right of the margins runs to the edge", on + "\x1b[1;8Habcd", "       abc\n  d", 3, 1},
		{"wide character wraps at the right margin", on + "\x1b[1;5H界界", "    界\n  界", 4, 1},
		{"CR to the left margin", on + "\x1b[1;5Hab\rX", "  X ab", 3, 0},
		{"CR left of the left margin", on + "\x1b[1;2H\rX", "X", 1, 0},
		{"NEL to the left margin", on + "\x1b[1;5H\x1bEX", "\n  X", 3, 1},
		{"CUF stops at the right margin", on + "\x1b[1;3H\x1b[9C", "", 5, 0},
		{"CUF right of the margin", on + "\x1b[1;8H\x1b[9C", "", 9, 0},
		{"CUB stops at the left margin", on + "\x1b[1;5H\x1b[9D", "", 2, 0},
		{"CUB left of the margin", on + "\x1b[1;2H\x1b[9D", "", 0, 0},
		{"CNL to the left margin", on + "\x1b[1;5H\x1b[E", "", 2, 1},
		{"HT stops at the right margin", on + "\x1b[1;3H\t", "", 5, 0},
		{"CBT passes the left margin", on + "\x1b[1;5H\x1b[Z", "", 0, 0},
		{"CBT stops at the left margin in origin mode", on + "\x1b[?6h\x1b[1;3H\x1b[Z", "", 2, 0},
		{"LF scrolls inside the margins", fill + on + "\x1b[4;3H\n", "1122221111\n2233332222\n3344443333\n44    4444", 2, 3},
		{"LF outside the margins does not scroll", fill + on + "\x1b[4;8H\n", "1111111111\n2222222222\n3333333333\n4444444444", 7, 3},
		{"RI scrolls inside the margins", fill + on + "\x1b[1;3H\x1bM", "11    1111\n2211112222\n3322223333\n4433334444", 2, 0},
		{"RI outside the margins does not scroll", fill + on + "\x1b[1;1H\x1bM", "1111111111\n2222222222\n3333333333\n4444444444", 0, 0},
		{"SU inside the margins", fill + on + "\x1b[2S", "1133331111\n2244442222\n33    3333\n44    4444", 0, 0},
		{"SD inside the margins", fill + on + "\x1b[T", "11    1111\n2211112222\n3322223333\n4433334444", 0, 0},
		{"SU inside both regions", fill + on + "\x1b[2;3r\x1b[S", "1111111111\n2233332222\n33    3333\n4444444444", 0, 0},
		{"IL inside the margins", fill + on + "\x1b[2;4H\x1b[L", "1111111111\n22    2222\n3322223333\n4433334444", 2, 1},
		{"DL inside the margins", fill + on + "\x1b[2;4H\x1b[M", "1111111111\n2233332222\n3344443333\n44    4444", 2, 1},
		{"IL outside the margins does nothing", fill + on + "\x1b[2;8H\x1b[L", "1111111111\n2222222222\n3333333333\n4444444444", 7, 1},
		{"ICH stops at the right margin", row + on + "\x1b[1;4H\x1b[2@", "012  36789", 3, 0},
		{"DCH stops at the right margin", row + on + "\x1b[1;4H\x1b[2P", "0125  6789", 3, 0},
		{"ICH outside the margins does nothing", row + on + "\x1b[1;8H\x1b[2@", row, 7, 0},
		{"IRM inserts up to the right margin", row + on + "\x1b[4h\x1b[1;4HX", "012X346789", 4, 0},
		{"origin mode counts from the margins", on + "\x1b[2;3r\x1b[?6h\x1b[1;1HX\x1b[1;9HY", "\n  X  Y", 5, 1},
		{"CHA in origin mode", on + "\x1b[?6h\x1b[2G", "", 3, 0},
		{"VPA in origin mode keeps the column", on + "\x1b[2;3r\x1b[?6h\x1b[1;2H\x1b[2d", "", 3, 2},
		{"DECLRMM off resets the margins", on + "\x1b[?69l\x1b[1;3H\x1b[9C", "", 9, 0},
		{"DECSTR resets the margins", on + "\x1b[!p\x1b[1;3H\x1b[9C", "", 9, 0},
		{"RIS resets the margins", on + "\x1bc\x1b[1;3H\x1b[9C", "", 9, 0},
		{"DECALN resets the margins", on + "\x1b#8\x1b[1;3H\x1b[9C", "EEEEEEEEEE\nEEEEEEEEEE\nEEEEEEEEEE\nEEEEEEEEEE", 9, 0},
		{"DECIC", row + "\r\nabcdefghij" + on + "\x1b[1;4H\x1b['}", "012 346789\nabc deghij", 3, 0},
		{"DECDC", row + "\r\nabcdefghij" + on + "\x1b[1;4H\x1b[2'~", "0125  6789\nabcf  ghij", 3, 0},
		{"DECIC outside the margins does nothing", row + on + "\x1b[1;8H\x1b['}", row, 7, 0},
		{"DECIC inside the scroll region only", row + "\r\nabcdefghij" + on + "\x1b[2;4r\x1b[2;4H\x1b['}", row + "\nabc deghij", 3, 1},
		{"DECBI at the left margin", row + on + "\x1b[1;3H\x1b6", "01 2346789", 2, 0},
		{"DECBI inside the margins moves left", row + on + "\x1b[1;4H\x1b6", row, 2, 0},
		{"DECFI at the right margin", row + on + "\x1b[1;6H\x1b9", "01345 6789", 5, 0},
		{"DECFI inside the margins moves right", row + on + "\x1b[1;4H\x1b9", row, 4, 0},
		{"DECFI without margins", row + "\x1b[1;10H\x1b9", "123456789", 9, 0},
		{"DECBI without margins", row + "\x1b[1;1H\x1b6", " 012345678", 0, 0},
		{"a wide character across a margin is cut", "\x1b[4;2H界" + on + "\x1b[4;3H\n", "", 2, 3},
		{"a wide character inside the margins moves whole", "\x1b[1;4H界" + on + "\x1b[1;3H\x1bM", "\n   界", 2, 0},
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

func TestFastEmulatorMarginReplies(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"DECRQSS DECSLRM", "\x1b[?69h\x1b[3;6s\x1bP$qs\x1b\\", "\x1bP1$r3;6s\x1b\\"},
		{"DECRQSS DECSLRM after DECLRMM off", "\x1b[?69h\x1b[3;6s\x1b[?69l\x1bP$qs\x1b\\", "\x1bP1$r1;10s\x1b\\"},
		{"cursor report in origin mode", "\x1b[?69h\x1b[3;6s\x1b[2;3r\x1b[?6h\x1b[2;2H\x1b[6n", "\x1b[2;2R"},
		{"cursor report outside origin mode", "\x1b[?69h\x1b[3;6s\x1b[2;3r\x1b[2;2H\x1b[6n", "\x1b[2;2R"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fastEmu(t, 10, 4, tc.input).reply(t); got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
	e := fastEmu(t, 10, 4, "\x1b[?69h\x1b[3;6s")
	e.Resize(20, 4)
	_, _ = e.Write([]byte("\x1bP$qs\x1b\\"))
	if got, want := e.reply(t), "\x1bP1$r1;20s\x1b\\"; got != want {
		t.Errorf("margins after a resize: %q, want %q", got, want)
	}
}

// TestFastEmulatorMarginsKeepScrollback checks that rows scrolled inside
// left and right margins never reach the scrollback, while the same
// scrolling without margins does.
func TestFastEmulatorMarginsKeepScrollback(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  int
	}{
		{"a\r\nb\r\nc\r\nd\x1b[?69h\x1b[3;6s\x1b[4;3H\n\n", 0},
		{"a\r\nb\r\nc\r\nd\x1b[?69h\x1b[4;3H\n\n", 2},
	} {
		if got := fastEmu(t, 10, 4, tc.input).Scrollback(); got != tc.want {
			t.Errorf("%q: %d scrollback lines, want %d", tc.input, got, tc.want)
		}
	}
}
