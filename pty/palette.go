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

// palette holds the colours a program gave palette entries with OSC 4;
// ColorDefault marks an entry it did not change.
type palette [256]Color

// apply returns the colour a cell coloured c shows: the program's RGB
// value for an indexed colour it redefined, else c itself, so the pane's
// skin keeps mapping the entries the program left alone.
func (p *palette) apply(c Color) Color {
	if n, ok := c.Index(); ok && !p[n].IsDefault() {
		return p[n]
	}
	return c
}

// osc performs OSC 4 (code "4") or OSC 104 (code "104") with its text
// (after the first ";") and returns the replies to queries, ended as the
// query was (BEL, or ST when st is set). OSC 4 takes pairs of an index
// and a colour spec, "?" asking for the entry's colour; OSC 104 resets the
// entries it lists, or all of them. Bad indexes and specs are skipped, as
// xterm does.
func (p *palette) osc(code, text string, st bool) string {
	args := strings.Split(text, ";")
	if code == "104" {
		if text == "" {
			*p = palette{}
		}
		for _, a := range args {
			if n, ok := paletteIndex(a); ok {
				p[n] = ColorDefault
			}
		}
		return ""
	}
	var out strings.Builder
	for i := 0; i+1 < len(args); i += 2 {
		n, ok := paletteIndex(args[i])
		switch {
		case !ok:
		case args[i+1] == "?":
			c := p[n]
			if c.IsDefault() {
				c = xtermColor(n)
			}
			out.WriteString("\x1b]4;" + strconv.Itoa(int(n)) + ";" + xrgb(c) + oscEnd(st))
		default:
			if c, ok := parseXColor(args[i+1]); ok {
				p[n] = c
			}
		}
	}
	return out.String()
}

// paletteIndex parses a palette index, 0 to 255.
func paletteIndex(s string) (uint8, bool) {
	n, err := strconv.ParseUint(s, 10, 8)
	return uint8(n), err == nil
}

// oscEnd returns the terminator of a reply to an OSC query: ST when the
// query ended with ST, else BEL.
func oscEnd(st bool) string {
	if st {
		return "\x1b\\"
	}
	return "\x07"
}
