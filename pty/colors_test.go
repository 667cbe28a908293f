package pty

import "testing"

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
