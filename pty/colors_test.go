package pty

import (
	"strings"
	"testing"
)

// light is a light skin's base: dark text on white.
var light = DefaultColors{Fg: RGBColor(0x1f, 0x23, 0x28), Bg: RGBColor(0xff, 0xff, 0xff)}

func TestDefaultColorQueries(t *testing.T) {
	cases := []struct {
		name   string
		colors DefaultColors
		input  string
		want   string
	}{
		// The case: xterm answers the colour just set, ended
		// with the ST the query ended with.
		{"set then query, ST", DefaultColors{}, "\x1b]10;#f0f0f0\x1b\\\x1b]10;?\x1b\\", "\x1b]10;rgb:f0f0/f0f0/f0f0\x1b\\"},
		{"set then query, BEL", DefaultColors{}, "\x1b]11;rgb:12/34/56\x07\x1b]11;?\x07", "\x1b]11;rgb:1212/3434/5656\x07"},
		{"a light pane's background", light, "\x1b]11;?\x1b\\", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\"},
		{"a light pane's foreground", light, "\x1b]10;?\x07", "\x1b]10;rgb:1f1f/2323/2828\x07"},
		{"unknown colours answer white on black", DefaultColors{}, "\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x07"},
		{"10 with two specs asks 10 and 11", light, "\x1b]10;?;?\x07", "\x1b]10;rgb:1f1f/2323/2828\x07\x1b]11;rgb:ffff/ffff/ffff\x07"},
		{"reset with 111", light, "\x1b]11;#000000\x07\x1b]111\x07\x1b]11;?\x07", "\x1b]11;rgb:ffff/ffff/ffff\x07"},
		{"a bad spec is ignored", light, "\x1b]11;nocolour\x07\x1b]11;?\x07", "\x1b]11;rgb:ffff/ffff/ffff\x07"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := emuKindNamed("fast").start(t, 10, 4, 0)
			e.SetDefaultColors(tc.colors)
			_, _ = e.Write([]byte(tc.input))
			if got := e.reply(t); got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDefaultColorsKeptPerEmulator checks both emulators remember what a
// program set, over the pane's colours, and answer with it (x/vt does not
// say how a query ended, so its replies end with BEL).
func TestDefaultColorsKeptPerEmulator(t *testing.T) {
	forEachEmu(t, "", func(t *testing.T, k emuKind) {
		e := k.start(t, 10, 4, 0)
		other := k.start(t, 10, 4, 0)
		e.SetDefaultColors(light)
		other.SetDefaultColors(light)
		_, _ = e.Write([]byte("\x1b]11;#102030\x07\x1b]11;?\x07"))
		if got, want := e.reply(t), "\x1b]11;rgb:1010/2020/3030\x07"; got != want {
			t.Errorf("reply %q, want %q", got, want)
		}
		want := DefaultColors{Fg: light.Fg, Bg: RGBColor(0x10, 0x20, 0x30)}
		if got := e.DefaultColors(); got != want {
			t.Errorf("DefaultColors = %v, want %v", got, want)
		}
		if got := other.DefaultColors(); got != light {
			t.Errorf("the other pane's DefaultColors = %v, want its own %v", got, light)
		}
	})
}

func TestParseXColor(t *testing.T) {
	cases := []struct {
		in   string
		want Color
		ok   bool
	}{
		{"#f0f0f0", RGBColor(0xf0, 0xf0, 0xf0), true},
		{"#fff", RGBColor(0xf0, 0xf0, 0xf0), true},
		{"#123456789", RGBColor(0x12, 0x45, 0x78), true},
		{"#ffffeeeedddd", RGBColor(0xff, 0xee, 0xdd), true},
		{"rgb:f/8/0", RGBColor(0xff, 0x88, 0x00), true},
		{"rgb:ffff/0000/8080", RGBColor(0xff, 0x00, 0x80), true},
		{"rgb:1/2", 0, false},
		{"rgb:12345/0/0", 0, false},
		{"#12345", 0, false},
		{"#gggggg", 0, false},
		{"white", 0, false},
	}
	for _, tc := range cases {
		got, ok := parseXColor(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseXColor(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPaletteQueries(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"standard colour", "\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07"},
		{"ended with ST", "\x1b]4;12;?\x1b\\", "\x1b]4;12;rgb:5c5c/5c5c/ffff\x1b\\"},
		{"colour cube", "\x1b]4;110;?\x07", "\x1b]4;110;rgb:8787/afaf/d7d7\x07"},
		{"cube corner", "\x1b]4;196;?\x07", "\x1b]4;196;rgb:ffff/0000/0000\x07"},
		{"grey ramp", "\x1b]4;244;?\x07", "\x1b]4;244;rgb:8080/8080/8080\x07"},
		{"set then query", "\x1b]4;1;#102030\x07\x1b]4;1;?\x07", "\x1b]4;1;rgb:1010/2020/3030\x07"},
		{"pairs", "\x1b]4;1;#010203;2;?\x07", "\x1b]4;2;rgb:0000/cdcd/0000\x07"},
		{"two queries", "\x1b]4;0;?;15;?\x07", "\x1b]4;0;rgb:0000/0000/0000\x07\x1b]4;15;rgb:ffff/ffff/ffff\x07"},
		{"bad index skipped", "\x1b]4;261;#fff;3;?\x07", "\x1b]4;3;rgb:cdcd/cdcd/0000\x07"},
		{"special colour unset is the foreground", "\x1b]10;#102030\x07\x1b]5;0;?\x07", "\x1b]5;0;rgb:1010/2020/3030\x07"},
		{"special colours set with OSC 5", "\x1b]5;0;rgb:f0f0/f0f0/f0f0;1;#f00\x07\x1b]5;0;?;1;?\x1b\\",
			"\x1b]5;0;rgb:f0f0/f0f0/f0f0\x1b\\\x1b]5;1;rgb:f0f0/0000/0000\x1b\\"},
		{"special colours are OSC 4's 256 to 260", "\x1b]4;256;#808080;260;#800000\x07\x1b]5;0;?\x07\x1b]4;260;?\x07",
			"\x1b]5;0;rgb:8080/8080/8080\x07\x1b]4;260;rgb:8080/0000/0000\x07"},
		{"special colour 5 is not", "\x1b]5;5;#fff;4;?\x07", "\x1b]5;4;rgb:ffff/ffff/ffff\x07"},
		{"OSC 105 resets one special colour", "\x1b]5;0;#101010;1;#101010\x07\x1b]105;1\x07\x1b]5;0;?;1;?\x07",
			"\x1b]5;0;rgb:1010/1010/1010\x07\x1b]5;1;rgb:ffff/ffff/ffff\x07"},
		{"OSC 105 resets them, not the palette", "\x1b]5;0;#101010\x07\x1b]4;1;#101010\x07\x1b]105\x07\x1b]5;0;?\x07\x1b]4;1;?\x07",
			"\x1b]5;0;rgb:ffff/ffff/ffff\x07\x1b]4;1;rgb:1010/1010/1010\x07"},
		{"bad spec ignored", "\x1b]4;3;nocolour\x07\x1b]4;3;?\x07", "\x1b]4;3;rgb:cdcd/cdcd/0000\x07"},
		{"reset one", "\x1b]4;1;#102030;2;#102030\x07\x1b]104;1\x07\x1b]4;1;?;2;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;2;rgb:1010/2020/3030\x07"},
		{"reset all", "\x1b]4;1;#102030;2;#102030\x07\x1b]104\x07\x1b]4;1;?;2;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;2;rgb:0000/cdcd/0000\x07"},
		{"reset by RIS", "\x1b]4;1;#102030\x07\x1bc\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07"},
		{"reset by DECSTR", "\x1b]4;1;#102030\x07\x1b[!p\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07"},
		// 4097 bytes, so the OSC limit cuts the last spec to rgb:12/34/5.
		{"a spec cut short is dropped", "\x1b]4;01;#102030;" + strings.Repeat("1;#102030;", 407) + "2;rgb:12/34/56\x07\x1b]4;2;?\x07", "\x1b]4;2;rgb:0000/cdcd/0000\x07"},
		{"cursor colour defaults to the foreground", "\x1b]12;?\x07", "\x1b]12;rgb:ffff/ffff/ffff\x07"},
		{"cursor colour set", "\x1b]12;#ff0000\x1b\\\x1b]12;?\x1b\\", "\x1b]12;rgb:ffff/0000/0000\x1b\\"},
		{"cursor colour reset", "\x1b]10;#102030\x07\x1b]12;#ff0000\x07\x1b]112\x07\x1b]12;?\x07", "\x1b]12;rgb:1010/2020/3030\x07"},
		{"10 with three specs asks 10, 11 and 12", "\x1b]10;?;?;?\x07", "\x1b]10;rgb:ffff/ffff/ffff\x07\x1b]11;rgb:0000/0000/0000\x07\x1b]12;rgb:ffff/ffff/ffff\x07"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := emuKindNamed("fast").start(t, 10, 4, 0)
			_, _ = e.Write([]byte(tc.input))
			var got string
			for len(got) < len(tc.want) {
				got += e.reply(t)
			}
			if got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPaletteCells(t *testing.T) {
	set := "\x1b]4;1;#102030\x07"
	rgb := RGBColor(0x10, 0x20, 0x30)
	cases := []struct {
		name   string
		input  string
		fg, bg Color
	}{
		{"redefined entry shows its colour", set + "\x1b[31;41mX", rgb, rgb},
		{"already drawn cells change too", "\x1b[38;5;1mX" + set, rgb, 0},
		{"other entries stay indexed", set + "\x1b[32;42mX", IndexedColor(2), IndexedColor(2)},
		{"RGB colours are left alone", set + "\x1b[38;2;1;2;3mX", RGBColor(1, 2, 3), 0},
		{"reset entry is indexed again", set + "\x1b[31mX\x1b]104;1\x07", IndexedColor(1), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := emuKindNamed("fast").start(t, 10, 2, 0)
			_, _ = e.Write([]byte(tc.input))
			if c := e.Cell(0, 0); c.Fg != tc.fg || c.Bg != tc.bg {
				t.Errorf("cell colours %v on %v, want %v on %v", c.Fg, c.Bg, tc.fg, tc.bg)
			}
			_, _ = e.Write([]byte("\r\n\n"))
			if line := e.ScrollbackLine(0); len(line) == 0 || line[0].Fg != tc.fg {
				t.Errorf("scrollback cell %+v, want fg %v", line, tc.fg)
			}
		})
	}
}

func TestCursorColorKept(t *testing.T) {
	forEachEmu(t, "", func(t *testing.T, k emuKind) {
		e := k.start(t, 10, 4, 0)
		e.SetDefaultColors(DefaultColors{Cursor: RGBColor(1, 2, 3)})
		_, _ = e.Write([]byte("\x1b]12;?\x07"))
		if got, want := e.reply(t), "\x1b]12;rgb:0101/0202/0303\x07"; got != want {
			t.Errorf("pane cursor colour reply %q, want %q", got, want)
		}
		_, _ = e.Write([]byte("\x1b]12;#a0b0c0\x07"))
		if got := e.DefaultColors().Cursor; got != RGBColor(0xa0, 0xb0, 0xc0) {
			t.Errorf("DefaultColors().Cursor = %v after OSC 12", got)
		}
		_, _ = e.Write([]byte("\x1b]112\x07"))
		if got := e.DefaultColors().Cursor; got != RGBColor(1, 2, 3) {
			t.Errorf("DefaultColors().Cursor = %v after OSC 112, want the pane's", got)
		}
	})
}
