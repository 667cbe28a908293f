package pty

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultColors are a pane's default foreground, background and cursor
// colours: the colours cells with ColorDefault are drawn in, and the
// answers to a program's OSC 10, 11 and 12 queries (vim and others pick a
// light or a dark scheme from the background). A ColorDefault field means
// the outer terminal's own colour, which the emulator does not know;
// queries about it are answered white (foreground) and black
// (background), and the cursor is taken to be the foreground colour, as
// in xterm.
type DefaultColors struct {
	// Fg is the default foreground colour.
	Fg Color
	// Bg is the default background colour.
	Bg Color
	// Cursor is the cursor colour.
	Cursor Color
}

// fallbackColors answer queries about a default colour nobody set.
var fallbackColors = DefaultColors{Fg: RGBColor(0xff, 0xff, 0xff), Bg: RGBColor(0, 0, 0)}

// dynColors are an emulator's default colours: the pane's, and those the
// program set with OSC 10, 11 and 12 over them (ColorDefault while unset).
type dynColors struct {
	pane, set DefaultColors
}

// current returns the colours in force: the program's where it set one,
// else the pane's.
func (d *dynColors) current() DefaultColors {
	c := d.pane
	if !d.set.Fg.IsDefault() {
		c.Fg = d.set.Fg
	}
	if !d.set.Bg.IsDefault() {
		c.Bg = d.set.Bg
	}
	if !d.set.Cursor.IsDefault() {
		c.Cursor = d.set.Cursor
	}
	return c
}

// slot returns the colour OSC code cmd (10, 11 or 12) sets, or nil for
// any other code.
func (d *dynColors) slot(cmd int) *Color {
	switch cmd {
	case 10:
		return &d.set.Fg
	case 11:
		return &d.set.Bg
	case 12:
		return &d.set.Cursor
	}
	return nil
}

// shown returns the colour an OSC 10, 11 or 12 query (cmd) is answered
// with: the one in force, else the fallback; the cursor falls back to the
// foreground.
func (d *dynColors) shown(cmd int) Color {
	cur := d.current()
	c, fb := cur.Fg, fallbackColors.Fg
	switch {
	case cmd == 11:
		c, fb = cur.Bg, fallbackColors.Bg
	case cmd == 12 && !cur.Cursor.IsDefault():
		c = cur.Cursor
	}
	if c.IsDefault() {
		return fb
	}
	return c
}

// osc performs OSC 10, 11 or 12 or their resets 110, 111 and 112 with its
// text (after the first ";") and returns the replies to queries, ended
// with BEL or ST as the query was (st). As in xterm, "OSC 10 ; a ; b"
// sets or queries 10 with a and 11 with b; a colour spec it cannot parse
// is ignored, and so is any other OSC code.
func (d *dynColors) osc(code, text string, st bool) string {
	cmd, err := strconv.Atoi(code)
	switch {
	case err != nil:
		return ""
	case cmd >= 110 && cmd <= 112:
		*d.slot(cmd - 100) = ColorDefault
		return ""
	case cmd < 10 || cmd > 12:
		return ""
	}
	var out strings.Builder
	for _, spec := range strings.Split(text, ";") {
		slot := d.slot(cmd)
		if slot == nil {
			break
		}
		if spec == "?" {
			fmt.Fprintf(&out, "\x1b]%d;%s%s", cmd, xrgb(d.shown(cmd)), oscEnd(st))
		} else if c, ok := parseXColor(spec); ok {
			*slot = c
		}
		cmd++
	}
	return out.String()
}

// xrgb spells a colour as X11's rgb:rrrr/gggg/bbbb, as xterm answers
// colour queries; an indexed colour is spelt as xterm's palette has it.
func xrgb(c Color) string {
	if n, ok := c.Index(); ok {
		c = xtermColor(n)
	}
	r, g, b, _ := c.RGB()
	return fmt.Sprintf("rgb:%02x%02x/%02x%02x/%02x%02x", r, r, g, g, b, b)
}

// parseXColor parses the colour specs programs send in OSC 10 and 11, as
// X11 reads them: "rgb:R/G/B" with one to four hex digits a channel,
// scaled (f, ff and ffff are all full intensity), and "#RGB", "#RRGGBB",
// "#RRRGGGBBB" or "#RRRRGGGGBBBB", whose digits are the channels' most
// significant bits. Colour names are not known.
func parseXColor(s string) (Color, bool) {
	var parts []string
	scaled := strings.HasPrefix(s, "rgb:")
	switch {
	case scaled:
		parts = strings.Split(s[len("rgb:"):], "/")
	case strings.HasPrefix(s, "#") && (len(s)-1)%3 == 0:
		n := (len(s) - 1) / 3
		parts = []string{s[1 : 1+n], s[1+n : 1+2*n], s[1+2*n:]}
	}
	if len(parts) != 3 {
		return 0, false
	}
	var ch [3]uint8
	for i, p := range parts {
		if len(p) < 1 || len(p) > 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return 0, false
		}
		bits := 4 * len(p)
		switch {
		case scaled:
			maxV := uint64(1)<<bits - 1
			ch[i] = uint8((v*255 + maxV/2) / maxV)
		case bits >= 8:
			ch[i] = uint8(v >> (bits - 8))
		default:
			ch[i] = uint8(v << (8 - bits))
		}
	}
	return RGBColor(ch[0], ch[1], ch[2]), true
}
