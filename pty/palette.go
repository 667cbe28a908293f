package pty

import (
	"strconv"
	"strings"
)

// ansi16 are xterm's default first sixteen colours: the standard eight
// and their bright forms.
var ansi16 = [16]Color{
	RGBColor(0x00, 0x00, 0x00), RGBColor(0xcd, 0x00, 0x00), RGBColor(0x00, 0xcd, 0x00), RGBColor(0xcd, 0xcd, 0x00),
	RGBColor(0x00, 0x00, 0xee), RGBColor(0xcd, 0x00, 0xcd), RGBColor(0x00, 0xcd, 0xcd), RGBColor(0xe5, 0xe5, 0xe5),
	RGBColor(0x7f, 0x7f, 0x7f), RGBColor(0xff, 0x00, 0x00), RGBColor(0x00, 0xff, 0x00), RGBColor(0xff, 0xff, 0x00),
	RGBColor(0x5c, 0x5c, 0xff), RGBColor(0xff, 0x00, 0xff), RGBColor(0x00, 0xff, 0xff), RGBColor(0xff, 0xff, 0xff),
}

// xtermColor returns the RGB value xterm gives palette entry n by
// default: the sixteen ANSI colours, then the 6 × 6 × 6 colour cube, then
// the 24-step grey ramp.
func xtermColor(n uint8) Color {
	switch {
	case n < 16:
		return ansi16[n]
	case n < 232:
		n -= 16
		return RGBColor(cubeLevel(n/36), cubeLevel(n/6%6), cubeLevel(n%6))
	}
	g := 8 + 10*(n-232)
	return RGBColor(g, g, g)
}

// cubeLevel is the intensity of step v (0–5) of a colour cube channel.
func cubeLevel(v uint8) uint8 {
	if v == 0 {
		return 0
	}
	return 55 + 40*v
}

// specialColors is how many special colours xterm keeps after the 256
// palette entries: those of bold, underline, blink, reverse and italic
// text. OSC 5 and 105 name them 0 to 4, OSC 4 and 104 256 to 260.
const specialColors = 5

// palette holds the colours a program gave palette entries and special
// colours with OSC 4 and 5; ColorDefault marks an entry it did not
// change.
type palette [256 + specialColors]Color

// apply returns the colour a cell coloured c shows: the program's RGB
// value for an indexed colour it redefined, else c itself, so the pane's
// skin keeps mapping the entries the program left alone.
func (p *palette) apply(c Color) Color {
	if n, ok := c.Index(); ok && !p[n].IsDefault() {
		return p[n]
	}
	return c
}

// osc performs OSC 4 or 5 (code "4" or "5"), or OSC 104 or 105, with its
// text (after the first ";") and returns the replies to queries, ended as
// the query was (BEL, or ST when st is set). OSC 4 and 5 take pairs of an
// index and a colour spec, "?" asking for the entry's colour; OSC 104 and
// 105 reset the entries they list, or all of theirs. A special colour
// nobody set is answered fg, the default foreground, which xterm draws it
// in. Bad indexes and specs are skipped, as xterm does.
func (p *palette) osc(code, text string, st bool, fg Color) string {
	base, n := 0, len(p)
	if code == "5" || code == "105" {
		base, n = 256, specialColors
	}
	args := strings.Split(text, ";")
	if code == "104" || code == "105" {
		if text == "" {
			clear(p[base : base+n])
		}
		for _, a := range args {
			if i, ok := paletteIndex(a, n); ok {
				p[base+i] = ColorDefault
			}
		}
		return ""
	}
	var out strings.Builder
	for i := 0; i+1 < len(args); i += 2 {
		k, ok := paletteIndex(args[i], n)
		switch {
		case !ok:
		case args[i+1] == "?":
			c := p[base+k]
			switch {
			case !c.IsDefault():
			case base+k < 256:
				c = xtermColor(uint8(k))
			default:
				c = fg
			}
			out.WriteString("\x1b]" + code + ";" + strconv.Itoa(k) + ";" + xrgb(c) + oscEnd(st))
		default:
			if c, ok := parseXColor(args[i+1]); ok {
				p[base+k] = c
			}
		}
	}
	return out.String()
}

// paletteIndex parses an index below n.
func paletteIndex(s string, n int) (int, bool) {
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0 && i < n
}

// oscEnd returns the terminator of a reply to an OSC query: ST when the
// query ended with ST, else BEL.
func oscEnd(st bool) string {
	if st {
		return "\x1b\\"
	}
	return "\x07"
}
