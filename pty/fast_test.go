package pty

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// fastEmu returns a FastEmulator of cols × rows cells, its Read drained,
// after input was written to it.
func fastEmu(t testing.TB, cols, rows int, input string) *testEmu {
	t.Helper()
	e := emuKindNamed("fast").start(t, cols, rows, 0)
	_, _ = e.Write([]byte(input))
	return e
}

func TestFastEmulatorScreen(t *testing.T) {
	cases := []struct {
		name  string
		cols  int // 10 when 0; the screen has 4 rows
		input string
		want  string
		x, y  int
	}{
		{"print", 0, "hello", "hello", 5, 0},
		{"pending wrap at last column", 0, "0123456789", "0123456789", 9, 0},
		{"wrap on next character", 0, "0123456789X", "0123456789\nX", 1, 1},
		{"CR clears pending wrap", 0, "0123456789\rX", "X123456789", 1, 0},
		{"autowrap off overwrites last column", 0, "\x1b[?7l0123456789XYZ", "012345678Z", 9, 0},
		{"autowrap back on", 0, "\x1b[?7l\x1b[?7h0123456789X", "0123456789\nX", 1, 1},
		{"BS", 0, "abc\b\bX", "aXc", 2, 0},
		{"BS at column 0", 0, "\bX", "X", 1, 0},
		{"BS from pending wrap", 0, "0123456789\bX", "01234567X9", 9, 0},
		{"HT default stops", 0, "a\tb", "a       b", 9, 0},
		{"HT stops at last column", 0, "\t\t\tX", "         X", 9, 0},
		{"HTS after TBC 3", 0, "\x1b[3g\x1b[4G\x1bH\r\tX", "   X", 4, 0},
		{"TBC 0", 0, "\x1b[9G\x1b[0g\r\tX", "         X", 9, 0},
		{"CHT and CBT", 20, "\x1b[2IX\x1b[2ZY", "        Y       X", 9, 0},
		{"LF VT FF keep the column", 0, "ab\ncd\x0bef\x0cgh", "ab\n  cd\n    ef\n      gh", 8, 3},
		{"LNM", 0, "\x1b[20hab\ncd", "ab\ncd", 2, 1},
		{"BEL and other C0 ignored", 0, "a\x07\x00\x01b", "ab", 2, 0},
		{"IND NEL RI", 0, "a\x1bDb\x1bEc\x1bMd", "a\n d\nc", 2, 1},
		{"RI at top scrolls down", 0, "a\r\nb\x1b[H\x1bMc", "c\na\nb", 1, 0},
		{"DECSC DECRC", 0, "\x1b[2;3H\x1b7\x1b[HX\x1b8Y", "X\n  Y", 3, 1},
		{"CSI s u", 0, "\x1b[2;3H\x1b[s\x1b[HX\x1b[uY", "X\n  Y", 3, 1},
		{"DECRC without DECSC homes", 0, "\x1b[3;3H\x1b8X", "X", 1, 0},
		{"CUP", 0, "\x1b[3;4H", "", 3, 2},
		{"HVP", 0, "\x1b[2;2f", "", 1, 1},
		{"CUP home", 0, "\x1b[3;3H\x1b[H", "", 0, 0},
		{"CUP clamps", 0, "\x1b[99;99H", "", 9, 3},
		{"CUU", 0, "\x1b[4;5H\x1b[2A", "", 4, 1},
		{"CUU clamps", 0, "\x1b[2;1H\x1b[5A", "", 0, 0},
		{"CUU zero counts one", 0, "\x1b[3;1H\x1b[0A", "", 0, 1},
		{"CUD", 0, "\x1b[2B", "", 0, 2},
		{"CUD clamps", 0, "\x1b[9B", "", 0, 3},
		{"CUF", 0, "\x1b[3C", "", 3, 0},
		{"CUF clamps", 0, "\x1b[99C", "", 9, 0},
		{"CUB", 0, "\x1b[5G\x1b[2D", "", 2, 0},
		{"CNL", 0, "\x1b[5G\x1b[2E", "", 0, 2},
		{"CPL", 0, "\x1b[3;5H\x1b[2F", "", 0, 0},
		{"CHA", 0, "\x1b[7G", "", 6, 0},
		{"HPA", 0, "\x1b[7`", "", 6, 0},
		{"HPR", 0, "\x1b[2G\x1b[3a", "", 4, 0},
		{"VPA", 0, "\x1b[5G\x1b[3d", "", 4, 2},
		{"VPR", 0, "\x1b[2e", "", 0, 2},
		{"ED 0", 0, "aaaa\r\nbbbb\r\ncccc\x1b[2;3H\x1b[J", "aaaa\nbb", 2, 1},
		{"ED 1", 0, "aaaa\r\nbbbb\r\ncccc\x1b[2;3H\x1b[1J", "\n   b\ncccc", 2, 1},
		{"ED 2", 0, "aaaa\r\nbbbb\x1b[2J", "", 4, 1},
		{"ED 3 keeps the screen", 0, "a\r\nb\x1b[3J", "a\nb", 1, 1},
		{"EL 0", 0, "abcdef\x1b[3G\x1b[K", "ab", 2, 0},
		{"EL 1", 0, "abcdef\x1b[3G\x1b[1K", "   def", 2, 0},
		{"EL 2", 0, "abcdef\x1b[3G\x1b[2K", "", 2, 0},
		{"ECH", 0, "abcdef\x1b[2G\x1b[3X", "a   ef", 1, 0},
		{"ICH", 0, "abcdef\x1b[2G\x1b[2@", "a  bcdef", 1, 0},
		{"ICH pushes cells off the end", 0, "0123456789\x1b[1G\x1b[3@", "   0123456", 0, 0},
		{"DCH", 0, "abcdef\x1b[2G\x1b[2P", "adef", 1, 0},
		{"IL", 0, "a\r\nb\r\nc\r\nd\x1b[2;3H\x1b[L", "a\n\nb\nc", 0, 1},
		{"DL", 0, "a\r\nb\r\nc\r\nd\x1b[2H\x1b[M", "a\nc\nd", 0, 1},
		{"SU", 0, "a\r\nb\r\nc\r\nd\x1b[2S", "c\nd", 1, 3},
		{"SD", 0, "a\r\nb\x1b[T", "\na\nb", 1, 1},
		{"DECSTBM homes the cursor", 0, "\x1b[3;3H\x1b[2;3r", "", 0, 0},
		{"scroll inside the region", 0, "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[3;1Hx\ny", "1\nx\n y\n4", 2, 2},
		{"IL inside the region", 0, "1\r\n2\r\n3\r\n4\x1b[1;3r\x1b[1;1H\x1b[L", "\n1\n2\n4", 0, 0},
		{"IL outside the region does nothing", 0, "1\r\n2\r\n3\r\n4\x1b[1;2r\x1b[4;1H\x1b[L", "1\n2\n3\n4", 0, 3},
		{"origin mode", 0, "\x1b[2;3r\x1b[?6h\x1b[HX\x1b[5;1HY", "\nX\nY", 1, 2},
		{"origin mode off homes to the screen", 0, "\x1b[2;3r\x1b[?6h\x1b[?6lX", "X", 1, 0},
		{"IRM", 0, "abc\x1b[4h\x1b[1GX", "Xabc", 1, 0},
		{"IRM off", 0, "abc\x1b[4h\x1b[4l\x1b[1GX", "Xbc", 1, 0},
		{"alt screen 47 shares the cursor", 0, "main\x1b[?47hALT", "    ALT", 7, 0},
		{"alt screen 47 back", 0, "main\x1b[?47hALT\x1b[?47l", "main", 7, 0},
		{"alt screen 1047 clears on entry", 0, "\x1b[?47hjunk\x1b[?47l\x1b[?1047h", "", 4, 0},
		{"alt screen 1049 clears on entry", 0, "\x1b[?47hjunk\x1b[?47l\x1b[?1049h", "", 4, 0},
		{"DEC graphics", 0, "\x1b(0lqk\x1b(Bx", "┌─┐x", 4, 0},
		{"SO and SI", 0, "\x1b)0a\x0eq\x0fq", "a─q", 3, 0},
		{"single shift", 0, "\x1b*0\x1bNqq", "─q", 2, 0},
		{"title ended by ESC", 0, "\x1b]2;a\x1b[1mb\x07", "b", 1, 0},
		{"OSC 8 link prints its text", 0, "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link", 4, 0},
		{"DCS consumed", 0, "a\x1bPq#0;2;0;0;0#0~~@@\x1b\\b", "ab", 2, 0},
		{"APC consumed", 0, "\x1b_Gf=24;AAAA\x1b\\c", "c", 1, 0},
		{"PM and SOS consumed", 0, "\x1b^pm\x1b\\d\x1bXsos\x1b\\e", "de", 2, 0},
		{"CAN cancels a sequence", 0, "\x1b[3\x18X", "X", 1, 0},
		{"ESC restarts a sequence", 0, "\x1b[3\x1b[2GX", " X", 2, 0},
		{"REP", 0, "a\x1b[3b", "aaaa", 4, 0},
		{"REP wide", 0, "界\x1bb\x1b[b", "界界", 4, 0},
		{"DECSCUSR prints nothing", 0, "a\x1b[2 qb", "ab", 2, 0},
		{"DECSEL keeps protected cells", 0, "a\x1b[1\"qbc\x1b[0\"qd\x1b[1G\x1b[?2K", " bc", 0, 0},
		{"DECSEL 0 from the cursor", 0, "ab\x1b[1\"qc\x1b[0\"qde\x1b[2G\x1b[?K", "a c", 1, 0},
		{"DECSED keeps protected cells", 0, "ab\r\n\x1b[1\"qcd\x1b[0\"q\r\nef\x1b[?2J", "\ncd", 2, 2},
		{"DECSED 1 up to the cursor", 0, "ab\r\ncd\r\nef\x1b[2;1H\x1b[?1J", "\n d\nef", 0, 1},
		{"DECSEL keeps a protected wide character", 0, "\x1b[1\"q界\x1b[0\"qx\x1b[?2K", "界", 3, 0},
		{"ED erases protected cells", 0, "\x1b[1\"qab\x1b[2J", "", 2, 0},
		{"private SGR ignored", 0, "\x1b[>4;1ma", "a", 1, 0},
		{"RIS", 0, "abc\x1b[2;3r\x1bcd", "d", 1, 0},
		{"DECALN", 0, "\x1b#8", "EEEEEEEEEE\nEEEEEEEEEE\nEEEEEEEEEE\nEEEEEEEEEE", 0, 0},
		{"DECSTR keeps the screen", 0, "ab\x1b[4h\x1b[!pX", "abX", 3, 0},
		{"wide", 0, "界x", "界x", 3, 0},
		{"wide at last column wraps", 0, "012345678界", "012345678\n界", 2, 1},
		{"overwrite right half of wide", 0, "界\bx", " x", 2, 0},
		{"overwrite left half of wide", 0, "界\b\bx", "x", 1, 0},
		{"DCH of the left half at column 0", 0, "界x\r\x1b[P", " x", 0, 0},
		{"combining mark", 0, "e\u0301x", "e\u0301x", 2, 0},
		{"combining mark on nothing", 0, "\u0301a", "a", 1, 0},
		{"combining mark after pending wrap", 0, "012345678e\u0301", "012345678e\u0301", 9, 0},
		{"invalid UTF-8", 0, "a\xffb", "a\uFFFDb", 3, 0},
		{"truncated UTF-8", 0, "\xe7\x95a", "\uFFFDa", 2, 0},
		{"C1 controls dropped", 0, "a\u0085b", "ab", 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, max(tc.cols, 10), 4, tc.input)
			if got := screenText(e); got != tc.want {
				t.Errorf("screen %q, want %q", got, tc.want)
			}
			if c := e.Cursor(); c.X != tc.x || c.Y != tc.y {
				t.Errorf("cursor %d,%d, want %d,%d", c.X, c.Y, tc.x, tc.y)
			}
		})
	}
}

func TestFastEmulatorCells(t *testing.T) {
	red, blue := IndexedColor(1), IndexedColor(4)
	all := AttrBold | AttrDim | AttrItalic | AttrUnderline | AttrBlink | AttrReverse | AttrConceal | AttrStrikethrough
	cases := []struct {
		name  string
		input string
		x     int
		want  Cell
	}{
		{"all attributes", "\x1b[1;2;3;4;5;7;8;9mX", 0, Cell{Content: "X", Width: 1, Attrs: all}},
		{"attributes off", "\x1b[1;2;3;4;5;7;8;9m\x1b[22;23;24;25;27;28;29mX", 0, Cell{Content: "X", Width: 1}},
		{"curly underline", "\x1b[4:3mX", 0, Cell{Content: "X", Width: 1, Attrs: AttrUnderline}},
		{"underline off by 4:0", "\x1b[4m\x1b[4:0mX", 0, Cell{Content: "X", Width: 1}},
		{"double underline", "\x1b[21mX", 0, Cell{Content: "X", Width: 1, Attrs: AttrUnderline}},
		{"rapid blink", "\x1b[6mX", 0, Cell{Content: "X", Width: 1, Attrs: AttrBlink}},
		{"basic colours", "\x1b[31;44mX", 0, Cell{Content: "X", Width: 1, Fg: red, Bg: blue}},
		{"bright colours", "\x1b[97;100mX", 0, Cell{Content: "X", Width: 1, Fg: IndexedColor(15), Bg: IndexedColor(8)}},
		{"default colours", "\x1b[31;44m\x1b[39;49mX", 0, Cell{Content: "X", Width: 1}},
		{"256 colours with colons", "\x1b[38:5:100mX", 0, Cell{Content: "X", Width: 1, Fg: IndexedColor(100)}},
		{"rgb with colons", "\x1b[38:2:1:2:3mX", 0, Cell{Content: "X", Width: 1, Fg: RGBColor(1, 2, 3)}},
		{"rgb with colour space", "\x1b[48:2::1:2:3mX", 0, Cell{Content: "X", Width: 1, Bg: RGBColor(1, 2, 3)}},
		{"params after 256 colours", "\x1b[48;5;7;1mX", 0, Cell{Content: "X", Width: 1, Bg: IndexedColor(7), Attrs: AttrBold}},
		{"params after rgb", "\x1b[38;2;10;20;30;4mX", 0, Cell{Content: "X", Width: 1, Fg: RGBColor(10, 20, 30), Attrs: AttrUnderline}},
		{"underline colour skipped", "\x1b[58:2::1:2:3;1mX", 0, Cell{Content: "X", Width: 1, Attrs: AttrBold}},
		{"underline colour with semicolons skipped", "\x1b[58;5;3;1mX", 0, Cell{Content: "X", Width: 1, Attrs: AttrBold}},
		{"out of range colour ignored", "\x1b[38;5;300mX", 0, Cell{Content: "X", Width: 1}},
		{"truncated rgb ignored", "\x1b[38;2;1mX", 0, Cell{Content: "X", Width: 1}},
		{"empty SGR resets", "\x1b[1;31m\x1b[mX", 0, Cell{Content: "X", Width: 1}},
		{"empty parameter resets", "\x1b[1;31m\x1b[;32mX", 0, Cell{Content: "X", Width: 1, Fg: IndexedColor(2)}},
		{"modifyOtherKeys is not SGR", "\x1b[1m\x1b[>4;1mX", 0, Cell{Content: "X", Width: 1, Attrs: AttrBold}},
		{"EL erases with the background", "\x1b[44m\x1b[2K", 5, Cell{Content: " ", Width: 1, Bg: blue}},
		{"ED erases with the background", "\x1b[44;1m\x1b[2J", 5, Cell{Content: " ", Width: 1, Bg: blue}},
		{"wide left half", "界", 0, Cell{Content: "界", Width: 2}},
		{"wide right half", "\x1b[31m界", 1, Cell{Content: "", Width: 0, Fg: red}},
		{"erased cell", "ab\x1b[1K", 0, BlankCell},
		{"combining marks", "e\u0301\u0327", 0, Cell{Content: "e\u0301\u0327", Width: 1}},
		{"third combining mark dropped", "e\u0301\u0327\u0302", 0, Cell{Content: "e\u0301\u0327", Width: 1}},
		{"pen saved by DECSC", "\x1b[31m\x1b7\x1b[m\x1b8X", 0, Cell{Content: "X", Width: 1, Fg: red}},
		{"RIS resets the pen", "\x1b[31m\x1bcX", 0, Cell{Content: "X", Width: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, tc.input)
			if got := e.Cell(tc.x, 0); got != tc.want {
				t.Errorf("cell %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestFastEmulatorState(t *testing.T) {
	cases := []struct {
		name  string
		input string
		check func(*testEmu) bool
	}{
		{"title with ST", "\x1b]2;a b\x1b\\", func(e *testEmu) bool { return e.Title() == "a b" }},
		{"title control characters dropped", "\x1b]2;a\xc2\x9bb\tc\x07", func(e *testEmu) bool { return e.Title() == "abc" }},
		{"title bidi overrides dropped", "\x1b]0;a\u202eb\x07", func(e *testEmu) bool { return e.Title() == "ab" }},
		{"title invalid UTF-8", "\x1b]2;a\xffb\x07", func(e *testEmu) bool { return e.Title() == "a\uFFFDb" }},
		{"title cancelled by CAN", "\x1b]2;a\x18b", func(e *testEmu) bool { return e.Title() == "" }},
		{"title stack", "\x1b]2;one\x07\x1b[22;0;0t\x1b]2;two\x07\x1b[23;0;0t", func(e *testEmu) bool { return e.Title() == "one" }},
		{"title survives RIS", "\x1b]2;t\x07\x1bc", func(e *testEmu) bool { return e.Title() == "t" }},
		{"RIS resets modes", "\x1b[?1h\x1b[?2004h\x1b[?1002;1006h\x1b[?25l\x1bc", func(e *testEmu) bool {
			return e.Modes() == InputModes{} && e.Cursor().Visible
		}},
		{"RIS leaves the alternate screen", "\x1b[?1049h\x1bc", func(e *testEmu) bool { return !e.AltScreen() }},
		{"DECSTR resets application cursor", "\x1b[?1h\x1b[!p", func(e *testEmu) bool { return !e.Modes().AppCursor }},
		{"mouse modes print nothing", "\x1b[?1000h\x1b[?1006hx", func(e *testEmu) bool { return screenText(e) == "x" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if e := fastEmu(t, 10, 4, tc.input); !tc.check(e) {
				t.Errorf("state after %q does not match", tc.input)
			}
		})
	}
}

func TestFastEmulatorReplies(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"DA1", "\x1b[c", "\x1b[?62;1;6;22c"},
		{"DA1 with zero", "\x1b[0c", "\x1b[?62;1;6;22c"},
		{"DA2", "\x1b[>c", "\x1b[>1;10;0c"},
		{"DSR 5", "\x1b[5n", "\x1b[0n"},
		{"DSR 6 home", "\x1b[6n", "\x1b[1;1R"},
		{"DSR 6 after pending wrap", "0123456789\x1b[6n", "\x1b[1;10R"},
		{"DSR 6 in origin mode", "\x1b[2;3r\x1b[?6h\x1b[2;4H\x1b[6n", "\x1b[2;4R"},
		{"DECXCPR", "\x1b[2;3H\x1b[?6n", "\x1b[?2;3R"},
		{"DECDSR printer", "\x1b[?15n", "\x1b[?13n"},
		{"DECDSR user-defined keys", "\x1b[?25n", "\x1b[?20n"},
		{"DECDSR keyboard", "\x1b[?26n", "\x1b[?27;1n"},
		{"DECDSR DEC locator", "\x1b[?55n", "\x1b[?50n"},
		{"DECDSR xterm locator", "\x1b[?53n", "\x1b[?50n"},
		{"DECDSR locator type", "\x1b[?56n", "\x1b[?57;0n"},
		{"DECDSR macro space", "\x1b[?62n", "\x1b[0*{"},
		{"DECDSR macro checksum", "\x1b[?63;123n", "\x1bP123!~0000\x1b\\"},
		{"DECDSR data integrity", "\x1b[?75n", "\x1b[?70n"},
		{"DECDSR sessions", "\x1b[?85n", "\x1b[?83n"},
		{"DECDSR unknown", "\x1b[?99n\x1b[5n", "\x1b[0n"},
		{"DECRQM set", "\x1b[?25$p", "\x1b[?25;1$y"},
		{"DECRQM reset", "\x1b[?2004$p", "\x1b[?2004;2$y"},
		{"DECRQM unknown", "\x1b[?9999$p", "\x1b[?9999;0$y"},
		{"DECRQM synchronized output", "\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"DECRQM synchronized output on", "\x1b[?2026h\x1b[?2026$p", "\x1b[?2026;1$y"},
		{"DECRQM ANSI", "\x1b[4h\x1b[4$p", "\x1b[4;1$y"},
		{"text area size", "\x1b[18t", "\x1b[8;4;10t"},
		{"screen size", "\x1b[19t", "\x1b[9;4;10t"},
		{"text area in pixels", "\x1b[14t", "\x1b[4;80;100t"},
		{"window in pixels", "\x1b[14;2t", "\x1b[4;80;100t"},
		{"cell size in pixels", "\x1b[16t", "\x1b[6;20;10t"},
		{"background colour", "\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"foreground colour", "\x1b]10;?\x07", "\x1b]10;rgb:ffff/ffff/ffff\x07"},
		{"DECRQSS SGR default", "\x1bP$qm\x1b\\", "\x1bP1$r0m\x1b\\"},
		{"DECRQSS SGR", "\x1b[1;31m\x1bP$qm\x1b\\", "\x1bP1$r0;1;31m\x1b\\"},
		{"DECRQSS SGR in xterm's order", "\x1b[9;3;2;8;7;5;4;1;38;5;100;48;2;1;2;3m\x1bP$qm\x1b\\", "\x1bP1$r0;1;4;5;7;8;2;3;9;38:5:100;48:2::1:2:3m\x1b\\"},
		{"DECRQSS SGR bright colours", "\x1b[91;102m\x1bP$qm\x1b\\", "\x1bP1$r0;91;102m\x1b\\"},
		{"DECRQSS DECSTBM", "\x1b[2;3r\x1bP$qr\x1b\\", "\x1bP1$r2;3r\x1b\\"},
		{"DECRQSS DECSTBM default", "\x1bP$qr\x1b\\", "\x1bP1$r1;4r\x1b\\"},
		{"DECRQSS DECSLRM default", "\x1bP$qs\x1b\\", "\x1bP1$r1;10s\x1b\\"},
		{"DECRQSS DECSCUSR default", "\x1bP$q q\x1b\\", "\x1bP1$r0 q\x1b\\"},
		{"DECRQSS DECSCUSR", "\x1b[4 q\x1bP$q q\x1b\\", "\x1bP1$r4 q\x1b\\"},
		{"DECRQSS DECSCUSR reset by DECSTR", "\x1b[4 q\x1b[!p\x1bP$q q\x1b\\", "\x1bP1$r0 q\x1b\\"},
		{"DECRQSS DECSCL default", "\x1bP$q\"p\x1b\\", "\x1bP1$r62;1\"p\x1b\\"},
		{"DECRQSS DECSCL", "\x1b[64;1\"p\x1bP$q\"p\x1b\\", "\x1bP1$r64;1\"p\x1b\\"},
		{"DECRQSS DECSCA", "\x1b[1\"q\x1bP$q\"q\x1b\\", "\x1bP1$r1\"q\x1b\\"},
		{"DECRQSS DECSCA off", "\x1b[1\"q\x1b[2\"q\x1bP$q\"q\x1b\\", "\x1bP1$r0\"q\x1b\\"},
		{"DECRQSS invalid", "\x1bP$qx\x1b\\", "\x1bP0$r\x1b\\"},
		{"DECRQSS after a long DCS", "\x1bPq" + strings.Repeat("#0;2;0;0;0", 20) + "\x1b\\\x1bP$qm\x1b\\", "\x1bP1$r0m\x1b\\"},
		{"DECRQSS cancelled by CAN", "\x1bP$qm\x18\x1b[5n", "\x1b[0n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fastEmu(t, 10, 4, tc.input).reply(t); got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFastEmulatorScrollback(t *testing.T) {
	lines := "1\r\n2\r\n3\r\n4\r\n5\r\n6"
	cases := []struct {
		name  string
		input string
		want  []string
	}{
		{"lines scrolled off the top", lines, []string{"1", "2"}},
		{"region with top 0", "\x1b[1;3r" + lines, []string{"1", "2", "3"}},
		{"region below the top", "\x1b[2;4r" + lines, nil},
		{"alternate screen", "\x1b[?1049h" + lines, nil},
		{"SU", "a\r\nb\x1b[2S", []string{"a", "b"}},
		{"SU in a region below the top", "a\r\nb\x1b[2;4r\x1b[2S", nil},
		{"DL at the top", "a\r\nb\x1b[H\x1b[M", nil},
		{"ED 2 keeps the used rows", "a\r\n\r\nb\r\n\x1b[2J", []string{"a", "", "b"}},
		{"ED 2 on the alternate screen", "\x1b[?1049ha\x1b[2J", nil},
		{"ED 3 clears", lines + "\x1b[3J", nil},
		{"autowrap scrolls", "0123456789abcdefghijklmnopqrstuvwxyzABCDEF", []string{"0123456789"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, tc.input)
			var got []string
			for i := range e.Scrollback() {
				got = append(got, LineText(e.ScrollbackLine(i)))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("scrollback %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFastEmulatorScrollbackCells(t *testing.T) {
	e := fastEmu(t, 10, 2, "ab   \r\n\x1b[41m  \x1b[m\r\n\x1b[1m界\x1b[m\r\n\r\n")
	cases := []struct {
		name string
		line int
		want []Cell
	}{
		{"trailing blanks trimmed", 0, []Cell{{Content: "a", Width: 1}, {Content: "b", Width: 1}}},
		{"coloured blanks kept", 1, []Cell{{Content: " ", Width: 1, Bg: IndexedColor(1)}, {Content: " ", Width: 1, Bg: IndexedColor(1)}}},
		{"wide character", 2, []Cell{{Content: "界", Width: 2, Attrs: AttrBold}, {Width: 0, Attrs: AttrBold}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.ScrollbackLine(tc.line); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("line %d = %+v, want %+v", tc.line, got, tc.want)
			}
		})
	}
	if e.ScrollbackLine(3) != nil || e.ScrollbackLine(-1) != nil {
		t.Error("out-of-range scrollback lines are not nil")
	}
}

func TestFastEmulatorResize(t *testing.T) {
	cases := []struct {
		name       string
		input      string
		cols, rows int
		want       string
		x, y       int
	}{
		{"grow keeps content", "ab\r\ncd", 20, 6, "ab\ncd", 2, 1},
		{"shrink columns cuts", "0123456789", 5, 4, "01234", 4, 0},
		{"shrink cuts a wide character", "0123界", 5, 4, "0123", 4, 0},
		{"grow adds tab stops", "", 20, 4, "", 0, 0},
		{"alternate screen 47 shrink", "1\r\n2\r\n3\r\n4\x1b[?47hx", 10, 2, "", 2, 1},
		{"region reset", "\x1b[2;3r", 10, 6, "", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, tc.input)
			e.Resize(tc.cols, tc.rows)
			if got := screenText(e); got != tc.want {
				t.Errorf("screen %q, want %q", got, tc.want)
			}
			if c := e.Cursor(); c.X != tc.x || c.Y != tc.y {
				t.Errorf("cursor %d,%d, want %d,%d", c.X, c.Y, tc.x, tc.y)
			}
		})
	}
	e := fastEmu(t, 10, 4, "")
	e.Resize(20, 4)
	_, _ = e.Write([]byte("\t\tx"))
	if got := screenText(e); got != strings.Repeat(" ", 16)+"x" {
		t.Errorf("tab stops after growing: %q", got)
	}
	_, _ = e.Write([]byte("\x1b[3;1H\x1b[1;3r\x1b[3;1H\n"))
	if got := e.Scrollback(); got != 1 {
		t.Errorf("region after resize: %d scrollback lines, want 1", got)
	}
}

func TestFastEmulatorInput(t *testing.T) {
	t.Run("replies and input in order", func(t *testing.T) {
		e := NewFastEmulator(10, 4, 0)
		defer e.Close()
		_, _ = e.Write([]byte("\x1b[5n"))
		e.SendKey(RuneKey('a', 0))
		e.SendText("bc")
		_, _ = e.Write([]byte("\x1b[?2004h"))
		e.Paste("d")
		_, _ = e.Write([]byte("\x1b[6n"))
		want := "\x1b[0nabc\x1b[200~d\x1b[201~\x1b[1;1R"
		buf := make([]byte, 64)
		n, err := e.Read(buf)
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
		}
	})
	t.Run("small reads", func(t *testing.T) {
		e := NewFastEmulator(10, 4, 0)
		defer e.Close()
		e.SendText("abcdef")
		var got []byte
		buf := make([]byte, 4)
		for len(got) < 6 {
			n, _ := e.Read(buf)
			got = append(got, buf[:n]...)
		}
		if string(got) != "abcdef" {
			t.Errorf("read %q", got)
		}
	})
	t.Run("close ends a blocked read", func(t *testing.T) {
		e := NewFastEmulator(10, 4, 0)
		done := make(chan error)
		go func() {
			_, err := e.Read(make([]byte, 8))
			done <- err
		}()
		time.Sleep(10 * time.Millisecond)
		_ = e.Close()
		select {
		case err := <-done:
			if err != io.EOF {
				t.Errorf("Read after Close = %v, want io.EOF", err)
			}
		case <-time.After(waitTimeout):
			t.Fatal("Read still blocked after Close")
		}
		e.SendText("dropped")
		if _, err := e.Read(make([]byte, 8)); err != io.EOF {
			t.Errorf("second Read = %v, want io.EOF", err)
		}
	})
	t.Run("writers wait for a full queue", func(t *testing.T) {
		e := NewFastEmulator(10, 4, 0)
		defer e.Close()
		e.SendText(strings.Repeat("x", maxQueued))
		done := make(chan struct{})
		go func() {
			_, _ = e.Write([]byte("\x1b[5n"))
			close(done)
		}()
		select {
		case <-done:
			t.Fatal("Write did not wait with a full queue")
		case <-time.After(20 * time.Millisecond):
		}
		buf := make([]byte, maxQueued)
		for n := 0; n < maxQueued; {
			m, _ := e.Read(buf[n:])
			n += m
		}
		<-done
		if n, _ := e.Read(buf); string(buf[:n]) != "\x1b[0n" {
			t.Errorf("reply after the wait %q", buf[:n])
		}
	})
}
