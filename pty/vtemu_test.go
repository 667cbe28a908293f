package pty

import (
	"fmt"
	"strings"
	"testing"
)

func TestVTEmulatorCells(t *testing.T) {
	cases := []struct {
		name  string
		input string
		check func(Cell) bool
	}{
		{"red foreground", "\x1b[31mX", func(c Cell) bool { return c.Fg == IndexedColor(1) }},
		{"bright background", "\x1b[104mX", func(c Cell) bool { return c.Bg == IndexedColor(12) }},
		{"256 colours", "\x1b[38;5;196mX", func(c Cell) bool { return c.Fg == IndexedColor(196) }},
		{"true colour", "\x1b[38;2;1;2;3mX", func(c Cell) bool { return c.Fg == RGBColor(1, 2, 3) }},
		{"true colour black", "\x1b[48;2;0;0;0mX", func(c Cell) bool { return c.Bg == RGBColor(0, 0, 0) }},
		{"indexed black", "\x1b[30mX", func(c Cell) bool { return c.Fg == IndexedColor(0) }},
		{"default colours", "X", func(c Cell) bool { return c.Fg == ColorDefault && c.Bg == ColorDefault && c.Attrs == 0 }},
		{"bold", "\x1b[1mX", func(c Cell) bool { return c.Attrs == AttrBold }},
		{"dim", "\x1b[2mX", func(c Cell) bool { return c.Attrs == AttrDim }},
		{"italic", "\x1b[3mX", func(c Cell) bool { return c.Attrs == AttrItalic }},
		{"underline", "\x1b[4mX", func(c Cell) bool { return c.Attrs == AttrUnderline }},
		{"reverse", "\x1b[7mX", func(c Cell) bool { return c.Attrs == AttrReverse }},
		{"strikethrough", "\x1b[9mX", func(c Cell) bool { return c.Attrs == AttrStrikethrough }},
		{"reset", "\x1b[1;31m\x1b[0mX", func(c Cell) bool { return c.Attrs == 0 && c.Fg == ColorDefault }},
		{"wide", "界", func(c Cell) bool { return c.Content == "界" && c.Width == 2 }},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 20, 5, 0)
			_, _ = e.Write([]byte(tc.input))
			if c := e.Cell(0, 0); !tc.check(c) {
				t.Errorf("cell %+v does not match", c)
			}
		})
	}
}

func TestColor(t *testing.T) {
	cases := []struct {
		name    string
		c       Color
		def     bool
		index   int // -1 when not indexed
		rgb     [3]uint8
		isRGB   bool
		display string
	}{
		{"default", ColorDefault, true, -1, [3]uint8{}, false, "default"},
		{"zero value", Color(0), true, -1, [3]uint8{}, false, "default"},
		{"unknown kind", Color(3 << 24), true, -1, [3]uint8{}, false, "default"},
		{"indexed 0", IndexedColor(0), false, 0, [3]uint8{}, false, "indexed(0)"},
		{"indexed 255", IndexedColor(255), false, 255, [3]uint8{}, false, "indexed(255)"},
		{"rgb black", RGBColor(0, 0, 0), false, -1, [3]uint8{0, 0, 0}, true, "#000000"},
		{"rgb", RGBColor(1, 0x80, 0xff), false, -1, [3]uint8{1, 0x80, 0xff}, true, "#0180ff"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.IsDefault(); got != tc.def {
				t.Errorf("IsDefault() = %v", got)
			}
			n, ok := tc.c.Index()
			if ok != (tc.index >= 0) || ok && int(n) != tc.index {
				t.Errorf("Index() = %d, %v; want %d", n, ok, tc.index)
			}
			r, g, b, ok := tc.c.RGB()
			if ok != tc.isRGB || [3]uint8{r, g, b} != tc.rgb {
				t.Errorf("RGB() = %d,%d,%d, %v; want %v, %v", r, g, b, ok, tc.rgb, tc.isRGB)
			}
			if got := tc.c.String(); got != tc.display {
				t.Errorf("String() = %q, want %q", got, tc.display)
			}
		})
	}
	if IndexedColor(1) == RGBColor(0, 0, 1) || IndexedColor(0) == ColorDefault || RGBColor(0, 0, 0) == ColorDefault {
		t.Error("colours of different kinds compare equal")
	}
}

func TestVTEmulatorState(t *testing.T) {
	cases := []struct {
		name  string
		input string
		check func(*testEmu) bool
	}{
		{"title osc 2", "\x1b]2;hello\x07", func(e *testEmu) bool { return e.Title() == "hello" }},
		{"title osc 0", "\x1b]0;both\x1b\\", func(e *testEmu) bool { return e.Title() == "both" }},
		{"title with semicolon", "\x1b]2;vim a;b\x07", func(e *testEmu) bool { return e.Title() == "vim a;b" }},
		{"icon name leaves title", "\x1b]2;t\x07\x1b]1;icon\x07", func(e *testEmu) bool { return e.Title() == "t" }},
		{"cursor hidden", "\x1b[?25l", func(e *testEmu) bool { return !e.Cursor().Visible }},
		{"cursor shown again", "\x1b[?25l\x1b[?25h", func(e *testEmu) bool { return e.Cursor().Visible }},
		{"cursor position", "\x1b[3;5H", func(e *testEmu) bool { return e.Cursor() == Cursor{X: 4, Y: 2, Visible: true} }},
		{"alt screen on", "\x1b[?1049h", func(e *testEmu) bool { return e.AltScreen() }},
		{"alt screen off", "\x1b[?1049h\x1b[?1049l", func(e *testEmu) bool { return !e.AltScreen() }},
		{"app cursor", "\x1b[?1h", func(e *testEmu) bool { return e.Modes().AppCursor }},
		{"bracketed paste", "\x1b[?2004h", func(e *testEmu) bool { return e.Modes().BracketedPaste }},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 20, 5, 0)
			_, _ = e.Write([]byte(tc.input))
			if !tc.check(e) {
				t.Errorf("state after %q does not match", tc.input)
			}
		})
	}
}

func TestVTEmulatorReplies(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"cursor position report", "\x1b[2;3H\x1b[6n", "\x1b[2;3R"},
		{"operating status", "\x1b[5n", "\x1b[0n"},
		{"primary device attributes", "\x1b[c", "\x1b[?62;1;6;22c"},
		{"secondary device attributes", "\x1b[>c", "\x1b[>1;10;0c"},
		{"cursor position report after a move", "\x1b[3;5H\x1b[6n", "\x1b[3;5R"},
		{"background colour query", "\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x07"},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 20, 5, 0)
			_, _ = e.Write([]byte(tc.input))
			if got := e.reply(t); got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVTEmulatorAltScreenRestoresPrimary(t *testing.T) {
	forEachEmu(t, "", func(t *testing.T, k emuKind) {
		e := k.start(t, 20, 5, 0)
		_, _ = e.Write([]byte("primary\r\n$ "))
		_, _ = e.Write([]byte("\x1b[?1049h\x1b[HALT"))
		if got := screenLines(e)[0]; got != "ALT" {
			t.Fatalf("alt screen row 0 = %q", got)
		}
		_, _ = e.Write([]byte("\x1b[?1049l"))
		lines := screenLines(e)
		if lines[0] != "primary" || lines[1] != "$" {
			t.Fatalf("primary screen not restored: %q", lines)
		}
		if c := e.Cursor(); c.X != 2 || c.Y != 1 {
			t.Errorf("cursor %+v, want 2,1", c)
		}
	})
}

func TestVTEmulatorShrinkKeepsCursorLine(t *testing.T) {
	cases := []struct {
		name       string
		promptRow  int
		rows       int
		wantRow    int
		wantPushed int
	}{
		{"prompt on last row", 23, 10, 9, 14},
		{"prompt below new height", 15, 10, 9, 6},
		{"prompt above new height", 5, 10, 5, 0},
		{"to one row", 23, 1, 0, 23},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 40, 24, 0)
			for i := range tc.promptRow {
				_, _ = fmt.Fprintf(e, "line %d\r\n", i)
			}
			_, _ = e.Write([]byte("$ typed"))
			e.Resize(30, tc.rows)
			lines := screenLines(e)
			if got := lines[tc.wantRow]; got != "$ typed" {
				t.Fatalf("row %d = %q, want the prompt; screen %q", tc.wantRow, got, lines)
			}
			if c := e.Cursor(); c.Y != tc.wantRow || c.X != 7 {
				t.Errorf("cursor %+v, want 7,%d", c, tc.wantRow)
			}
			if got := e.Scrollback(); got != tc.wantPushed {
				t.Errorf("scrollback %d lines, want %d", got, tc.wantPushed)
			}
			if tc.wantPushed > 0 {
				if got := LineText(e.ScrollbackLine(tc.wantPushed - 1)); got != fmt.Sprintf("line %d", tc.wantPushed-1) {
					t.Errorf("newest scrollback line %q", got)
				}
			}
		})
	}
}

func TestVTEmulatorScrollbackCap(t *testing.T) {
	cases := []struct {
		name       string
		scrollback int
		lines      int
		want       int
	}{
		{"default cap", 0, 3000, DefaultScrollback},
		{"small cap", 100, 3000, 100},
		{"under cap", 100, 50, 50 - 4},
		{"far over cap in one write", 10, 20000, 10},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 20, 5, tc.scrollback)
			var b strings.Builder
			for i := 1; i <= tc.lines; i++ {
				fmt.Fprintf(&b, "%d\r\n", i)
			}
			_, _ = e.Write([]byte(b.String()))
			if got := e.Scrollback(); got != tc.want {
				t.Fatalf("Scrollback() = %d, want %d", got, tc.want)
			}
			// The newest scrollback line is the one just above the screen,
			// which shows the last 4 numbers and the empty cursor row.
			want := fmt.Sprint(tc.lines - 4)
			if got := LineText(e.ScrollbackLine(tc.want - 1)); got != want {
				t.Errorf("newest scrollback line %q, want %q", got, want)
			}
			if got := LineText(e.ScrollbackLine(0)); got != fmt.Sprint(tc.lines-4-tc.want+1) {
				t.Errorf("oldest scrollback line %q", got)
			}
			if e.ScrollbackLine(tc.want) != nil || e.ScrollbackLine(-1) != nil {
				t.Error("out-of-range scrollback lines are not nil")
			}
		})
	}
}

func TestVTEmulatorResizeOnAltScreenKeepsPrompt(t *testing.T) {
	cases := []struct {
		name       string
		cols, rows int
		wantRow    int
		wantTop    string
		wantPushed int
	}{
		{"shrink", 30, 8, 7, "line 16", 16},
		{"grow", 50, 30, 23, "line 0", 0},
		{"no resize", 40, 24, 23, "line 0", 0},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 40, 24, 0)
			for i := range 23 {
				_, _ = fmt.Fprintf(e, "line %d\r\n", i)
			}
			_, _ = e.Write([]byte("$ vim"))
			_, _ = e.Write([]byte("\x1b[?1049h\x1b[Hvim screen"))
			e.Resize(tc.cols, tc.rows)
			if got := screenLines(e)[0]; got != "vim screen" {
				t.Fatalf("alternate screen row 0 = %q", got)
			}
			_, _ = e.Write([]byte("\x1b[?1049l"))
			lines := screenLines(e)
			if lines[tc.wantRow] != "$ vim" || lines[0] != tc.wantTop {
				t.Fatalf("primary screen after leaving vim: %q", lines)
			}
			if c := e.Cursor(); c.Y != tc.wantRow || c.X != 5 {
				t.Errorf("cursor %+v, want 5,%d", c, tc.wantRow)
			}
			if got := e.Scrollback(); got != tc.wantPushed {
				t.Errorf("scrollback %d lines, want %d", got, tc.wantPushed)
			}
			_, _ = e.Write([]byte("\r\n$ next"))
			if got := screenLines(e)[min(tc.wantRow+1, tc.rows-1)]; got != "$ next" {
				t.Errorf("next prompt row = %q", got)
			}
		})
	}
}
