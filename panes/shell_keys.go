package panes

import (
	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/themes"
)

// specialKeys maps tcell's special keys to the pty keys of the same name.
var specialKeys = map[tcell.Key]pty.KeyCode{
	tcell.KeyEnter: pty.KeyEnter, tcell.KeyTab: pty.KeyTab, tcell.KeyEscape: pty.KeyEscape,
	tcell.KeyBackspace: pty.KeyBackspace, tcell.KeyBackspace2: pty.KeyBackspace,
	tcell.KeyUp: pty.KeyUp, tcell.KeyDown: pty.KeyDown, tcell.KeyLeft: pty.KeyLeft, tcell.KeyRight: pty.KeyRight,
	tcell.KeyHome: pty.KeyHome, tcell.KeyEnd: pty.KeyEnd, tcell.KeyPgUp: pty.KeyPgUp, tcell.KeyPgDn: pty.KeyPgDn,
	tcell.KeyInsert: pty.KeyInsert, tcell.KeyDelete: pty.KeyDelete,
	tcell.KeyCtrlLeftSq: pty.KeyEscape,
}

// ptyMods converts tcell's modifier mask to the pty's.
func ptyMods(m tcell.ModMask) pty.Mod {
	var out pty.Mod
	if m&tcell.ModShift != 0 {
		out |= pty.ModShift
	}
	if m&tcell.ModCtrl != 0 {
		out |= pty.ModCtrl
	}
	if m&tcell.ModAlt != 0 {
		out |= pty.ModAlt
	}
	if m&tcell.ModMeta != 0 {
		out |= pty.ModMeta
	}
	return out
}

// ptyKey converts a tcell key event to the key the program is sent, and
// reports false for keys a terminal has no encoding for (F13 and up,
// Help, Print and the like).
//
// tcell reports Ctrl plus a letter or one of @ [ \ ] ^ _ as its own
// KeyCtrl… codes or, from some input paths, as the raw control character;
// both become the character with ModCtrl, which EncodeKey turns back into
// the control byte. Tab, Enter and Backspace arrive as their own keys, so
// Ctrl-I, Ctrl-M and Ctrl-H reach the program as the bytes those keys send.
func ptyKey(ev *tcell.EventKey) (pty.Key, bool) {
	mod := ptyMods(ev.Modifiers())
	code := ev.Key()
	switch {
	case code == tcell.KeyRune:
		// Shift is already in the character.
		return pty.RuneKey(ev.Rune(), mod&^pty.ModShift), true
	case code == tcell.KeyBacktab:
		return pty.Key{Key: pty.KeyTab, Mod: mod | pty.ModShift}, true
	case code >= tcell.KeyF1 && code <= tcell.KeyF12:
		return pty.Key{Key: pty.KeyF1 + pty.KeyCode(code-tcell.KeyF1), Mod: mod}, true
	}
	if k, ok := specialKeys[code]; ok {
		return pty.Key{Key: k, Mod: mod}, true
	}
	if r, ok := ctrlRune(code); ok {
		return pty.RuneKey(r, (mod|pty.ModCtrl)&^pty.ModShift), true
	}
	return pty.Key{}, false
}

// ctrlRune returns the character that, held with Ctrl, makes code: a
// lower-case letter, a space for Ctrl-Space, or one of [ \ ] ^ _.
func ctrlRune(code tcell.Key) (rune, bool) {
	switch {
	case code == tcell.KeyCtrlSpace || code == tcell.KeyNUL:
		return ' ', true
	case code >= tcell.KeyCtrlA && code <= tcell.KeyCtrlZ:
		return 'a' + rune(code-tcell.KeyCtrlA), true
	case code >= tcell.KeyCtrlLeftSq && code <= tcell.KeyCtrlUnderscore:
		return rune(code), true
	case code >= tcell.KeySOH && code <= tcell.KeySUB:
		return 'a' + rune(code-tcell.KeySOH), true
	case code >= tcell.KeyFS && code <= tcell.KeyUS:
		return rune(code) + '@', true
	}
	return 0, false
}

// tcellColor converts a cell colour, using def for the default colour.
func tcellColor(c pty.Color, def tcell.Color) tcell.Color {
	if n, ok := c.Index(); ok {
		return tcell.PaletteColor(int(n))
	}
	if r, g, b, ok := c.RGB(); ok {
		return tcell.NewRGBColor(int32(r), int32(g), int32(b))
	}
	return def
}

// ptyColor converts a skin colour to a cell colour: its RGB value as tcell
// knows it, or ColorDefault for the terminal's own colour.
func ptyColor(c tcell.Color) pty.Color {
	r, g, b := c.RGB()
	if r < 0 {
		return pty.ColorDefault
	}
	return pty.RGBColor(uint8(r), uint8(g), uint8(b))
}

// cellStyle returns the tcell style of a cell: its own colours, or the
// theme's base colours where it has the default, its attributes, and its
// OSC 8 link, which the outer terminal then shows as a link and opens on
// a click, as under tmux 3.4 (the emulator keeps only URIs without
// control characters).
func cellStyle(c pty.Cell, base themes.Style) tcell.Style {
	a := c.Attrs
	return tcell.StyleDefault.Url(c.Link).
		Foreground(tcellColor(c.Fg, base.Fg)).
		Background(tcellColor(c.Bg, base.Bg)).
		Bold(a&pty.AttrBold != 0).
		Italic(a&pty.AttrItalic != 0).
		Underline(a&pty.AttrUnderline != 0).
		Reverse(a&pty.AttrReverse != 0).
		Dim(a&pty.AttrDim != 0).
		Blink(a&pty.AttrBlink != 0).
		StrikeThrough(a&pty.AttrStrikethrough != 0)
}

// cellRunes returns the runes to put on the screen for a cell: the first
// rune of its grapheme cluster and the combining runes after it. Empty,
// concealed and control content shows as a space.
func cellRunes(c pty.Cell) (rune, []rune) {
	if c.Content == "" || c.Attrs&pty.AttrConceal != 0 {
		return ' ', nil
	}
	rs := []rune(c.Content)
	if rs[0] < ' ' || rs[0] == 0x7f || rs[0] >= 0x80 && rs[0] < 0xa0 {
		return ' ', nil
	}
	return rs[0], rs[1:]
}

// drawRow paints one row of terminal cells at x, y across w columns;
// columns past the end of cells are blank. override, when not nil, may
// replace a column's style (copy mode's cursor, selection and matches).
// A wide character is drawn once, in its left column; one that would
// stick out of the pane shows as a space.
func drawRow(screen tcell.Screen, x, y, w int, cells []pty.Cell, base themes.Style, override func(col int) (tcell.Style, bool)) {
	wide := false
	for col := range w {
		c := pty.BlankCell
		if col < len(cells) {
			c = cells[col]
		}
		st := cellStyle(c, base)
		if override != nil {
			if o, ok := override(col); ok {
				st = o
			}
		}
		if c.Width == 0 && wide {
			wide = false
			continue
		}
		wide = c.Width == 2 && col+1 < w
		main, comb := cellRunes(c)
		if c.Width == 2 && !wide {
			main, comb = ' ', nil
		}
		screen.SetContent(x+col, y, main, comb, st)
	}
}
