package pty

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultColors are a pane's default foreground and background: the
// colours cells with ColorDefault are drawn in, and the answers to a
// program's OSC 10 and OSC 11 queries (vim and others pick a light or a
// dark scheme from the background). A ColorDefault field means the outer
// terminal's own colour, which the emulator does not know; queries about
// it are answered white (foreground) and black (background).
type DefaultColors struct {
	// Fg is the default foreground colour.
	Fg Color
	// Bg is the default background colour.
	Bg Color
}

// fallbackColors answer queries about a default colour nobody set.
var fallbackColors = DefaultColors{Fg: RGBColor(0xff, 0xff, 0xff), Bg: RGBColor(0, 0, 0)}

// dynColors are an emulator's default colours: the pane's, and those the
// program set with OSC 10 and 11 over them (ColorDefault while unset).
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
	return c
}

// slot returns the colour OSC code cmd (10 or 11) sets, or nil for any
// other code.
func (d *dynColors) slot(cmd int) *Color {
	switch cmd {
	case 10:
		return &d.set.Fg
	case 11:
		return &d.set.Bg
	}
	return nil
}

// osc performs OSC 10, 11, 110 or 111 with its text (after the first
// ";") and returns the replies to queries, ended with BEL or ST as the
// query was (st). As in xterm, "OSC 10 ; a ; b" sets or queries 10 with a
// and 11 with b; a colour spec it cannot parse is ignored, and so is any
// other OSC code.
func (d *dynColors) osc(code, text string, st bool) string {
	cmd, err := strconv.Atoi(code)
	switch {
	case err != nil:
		return ""
	case cmd == 110 || cmd == 111:
		*d.slot(cmd - 100) = ColorDefault
		return ""
	case cmd != 10 && cmd != 11:
		return ""
	}
	end := "\x07"
	if st {
		end = "\x1b\\"
	}
	var out strings.Builder
	for _, spec := range strings.Split(text, ";") {
		slot := d.slot(cmd)
		if slot == nil {
			break
		}
		if spec == "?" {
			cur, fb := d.current().Fg, fallbackColors.Fg
			if cmd == 11 {
				cur, fb = d.current().Bg, fallbackColors.Bg
			}
			if cur.IsDefault() {
				cur = fb
			}
			fmt.Fprintf(&out, "\x1b]%d;%s%s", cmd, xrgb(cur), end)
		} else if c, ok := parseXColor(spec); ok {
			*slot = c
		}
		cmd++
	}
	return out.String()
}

// xrgb spells an RGB colour as X11's rgb:rrrr/gggg/bbbb, as xterm
// answers colour queries.
func xrgb(c Color) string {
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
