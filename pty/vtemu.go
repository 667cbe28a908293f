package pty

import (
	"bytes"
	"image/color"
	"io"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// DefaultScrollback is the number of scrollback lines kept when none is
// configured.
const DefaultScrollback = 2000

// writeChunk is the largest piece of output parsed between two scrollback
// trims. A piece can add at most this many lines, so scrollback never
// reaches the emulator's own limit, where x/vt shifts the whole buffer for
// every new line.
const writeChunk = 4096

// VTEmulator is the Emulator built on charmbracelet/x/vt. Like every
// Emulator it is not safe for concurrent use except Read.
type VTEmulator struct {
	emu        *vt.Emulator
	scrollback int
	primary    *savedPrimary

	title         string
	cursorVisible bool
	modes         InputModes
	// synced is synchronized output (mode 2026).
	synced    bool
	colors    dynColors
	clipboard func(text string)
	alert     func(text string)
}

var _ Emulator = (*VTEmulator)(nil)

// NewVTEmulator returns an x/vt emulator of cols × rows cells that keeps
// up to scrollback lines (DefaultScrollback when scrollback ≤ 0). Its Read
// must be drained from the moment it is created.
func NewVTEmulator(cols, rows, scrollback int) *VTEmulator {
	if scrollback <= 0 {
		scrollback = DefaultScrollback
	}
	e := &VTEmulator{
		emu:           vt.NewEmulator(max(cols, 1), max(rows, 1)),
		scrollback:    scrollback,
		cursorVisible: true,
	}
	e.emu.SetScrollbackSize(scrollback + writeChunk)
	e.emu.SetCallbacks(vt.Callbacks{
		CursorVisibility: func(v bool) { e.cursorVisible = v },
		AltScreen:        e.altScreenChanged,
		EnableMode:       func(m ansi.Mode) { e.setMode(m, true) },
		DisableMode:      func(m ansi.Mode) { e.setMode(m, false) },
		Bell: func() {
			if e.alert != nil {
				e.alert("")
			}
		},
	})
	e.fixHandlers()
	return e
}

// fixHandlers registers handlers that run before x/vt's own (later
// registrations run first): DSR 5 gets the ANSI reply CSI 0 n instead of
// x/vt's DEC form CSI ? 0 n, OSC 0/2 titles may contain semicolons (x/vt
// drops such titles), OSC 10/11/12 (and their resets) answer with the
// pane's colours as FastEmulator does (ended with BEL: x/vt does not say
// how the query ended), OSC 52 goes to the clipboard handler (see
// decodeOSC52), and a switch to the alternate screen first saves the
// primary screen for altScreenChanged.
func (e *VTEmulator) fixHandlers() {
	e.emu.RegisterCsiHandler('n', func(params ansi.Params) bool {
		if n, _, ok := params.Param(0, 0); !ok || n != 5 || len(params) != 1 {
			return false
		}
		_, _ = io.WriteString(e.emu.InputPipe(), "\x1b[0n")
		return true
	})
	e.emu.RegisterCsiHandler(ansi.Command('?', 0, 'h'), func(params ansi.Params) bool {
		if !e.emu.IsAltScreen() && setsAltScreen(params) {
			e.savePrimary()
		}
		return false
	})
	for _, cmd := range []int{0, 2} {
		e.emu.RegisterOscHandler(cmd, func(data []byte) bool {
			_, title, ok := bytes.Cut(data, []byte{';'})
			if !ok {
				return false
			}
			e.title = string(title)
			return true
		})
	}
	for _, cmd := range []int{9, 777} {
		e.emu.RegisterOscHandler(cmd, func(data []byte) bool {
			code, text, _ := bytes.Cut(data, []byte{';'})
			t, ok := notification(string(code), string(text))
			if ok && e.alert != nil {
				e.alert(t)
			}
			return ok
		})
	}
	e.emu.RegisterOscHandler(52, func(data []byte) bool {
		_, text, _ := bytes.Cut(data, []byte{';'})
		if t, ok := decodeOSC52(string(text)); ok && e.clipboard != nil {
			e.clipboard(t)
		}
		return true
	})
	for _, cmd := range []int{10, 11, 12, 110, 111, 112} {
		e.emu.RegisterOscHandler(cmd, func(data []byte) bool {
			code, text, _ := bytes.Cut(data, []byte{';'})
			if r := e.colors.osc(string(code), string(text), false); r != "" {
				_, _ = io.WriteString(e.emu.InputPipe(), r)
			}
			return true
		})
	}
}

// SetDefaultColors sets the pane's default colours; colours the program
// set with OSC 10 or 11 stay in force over them.
func (e *VTEmulator) SetDefaultColors(c DefaultColors) {
	e.colors.pane = c
}

// SetClipboardHandler makes fn receive the text of the program's OSC 52
// requests to set the clipboard; nil ignores them.
func (e *VTEmulator) SetClipboardHandler(fn func(text string)) {
	e.clipboard = fn
}

// SetAlertHandler makes fn hear bells and desktop notifications.
func (e *VTEmulator) SetAlertHandler(fn func(text string)) {
	e.alert = fn
}

// DefaultColors returns the default colours in force: the program's where
// it set one with OSC 10 or 11, else the pane's.
func (e *VTEmulator) DefaultColors() DefaultColors {
	return e.colors.current()
}

// setMode records the modes that change input encoding, focus events and
// synchronized output.
func (e *VTEmulator) setMode(m ansi.Mode, on bool) {
	switch m {
	case ansi.ModeSynchronizedOutput:
		e.synced = on
	case ansi.ModeCursorKeys:
		e.modes.AppCursor = on
	case ansi.ModeBracketedPaste:
		e.modes.BracketedPaste = on
	case ansi.ModeFocusEvent:
		e.modes.FocusEvents = on
	case ansi.ModeMouseX10, ansi.ModeMouseNormal, ansi.ModeMouseButtonEvent, ansi.ModeMouseAnyEvent, ansi.ModeMouseExtSgr:
		e.modes.setMouseMode(m.Mode(), on)
	}
}

// Write parses program output. It blocks while a reply the output asks
// for waits to be read from Read.
func (e *VTEmulator) Write(p []byte) (int, error) {
	for off := 0; off < len(p); off += writeChunk {
		end := min(off+writeChunk, len(p))
		if _, err := e.emu.Write(p[off:end]); err != nil {
			return off, err
		}
		e.trimScrollback()
	}
	return len(p), nil
}

// trimScrollback cuts the scrollback back to its configured size, an O(1)
// reslice in x/vt, then restores the slack above it.
func (e *VTEmulator) trimScrollback() {
	if e.emu.ScrollbackLen() > e.scrollback {
		e.emu.SetScrollbackSize(e.scrollback)
		e.emu.SetScrollbackSize(e.scrollback + writeChunk)
	}
}

// Size returns the screen size.
func (e *VTEmulator) Size() (cols, rows int) {
	return e.emu.Width(), e.emu.Height()
}

// Cell returns the visible cell at x, y.
func (e *VTEmulator) Cell(x, y int) Cell {
	return convertCell(e.emu.CellAt(x, y))
}

// Cursor returns the cursor position and visibility.
func (e *VTEmulator) Cursor() Cursor {
	p := e.emu.CursorPosition()
	return Cursor{X: p.X, Y: p.Y, Visible: e.cursorVisible}
}

// AltScreen reports whether the alternate screen is active.
func (e *VTEmulator) AltScreen() bool {
	return e.emu.IsAltScreen()
}

// Title returns the last title set with OSC 0 or OSC 2.
func (e *VTEmulator) Title() string {
	return e.title
}

// Modes returns the input modes the program has enabled.
func (e *VTEmulator) Modes() InputModes {
	return e.modes
}

// Scrollback returns the number of scrollback lines.
func (e *VTEmulator) Scrollback() int {
	return min(e.emu.ScrollbackLen(), e.scrollback)
}

// ScrollbackLine returns scrollback line i, 0 being the oldest.
func (e *VTEmulator) ScrollbackLine(i int) []Cell {
	n := e.Scrollback()
	if i < 0 || i >= n {
		return nil
	}
	line := e.emu.Scrollback().Line(e.emu.ScrollbackLen() - n + i)
	out := make([]Cell, len(line))
	for x := range line {
		out[x] = convertCell(&line[x])
	}
	return out
}

// attrMap pairs x/vt's attribute bits with ours.
var attrMap = [...]struct {
	uv   uint8
	attr Attr
}{
	{uv.AttrBold, AttrBold},
	{uv.AttrFaint, AttrDim},
	{uv.AttrItalic, AttrItalic},
	{uv.AttrBlink, AttrBlink},
	{uv.AttrRapidBlink, AttrBlink},
	{uv.AttrReverse, AttrReverse},
	{uv.AttrConceal, AttrConceal},
	{uv.AttrStrikethrough, AttrStrikethrough},
}

// convertCell turns an x/vt cell into a Cell.
func convertCell(c *uv.Cell) Cell {
	if c == nil {
		return BlankCell
	}
	out := Cell{
		Content: c.Content,
		Width:   c.Width,
		Fg:      vtColor(c.Style.Fg),
		Bg:      vtColor(c.Style.Bg),
	}
	if c.Content == "" && c.Width != 0 {
		out.Content = " "
	}
	if a := c.Style.Attrs; a != 0 {
		for _, m := range attrMap {
			if a&m.uv != 0 {
				out.Attrs |= m.attr
			}
		}
	}
	if c.Style.Underline != uv.UnderlineNone {
		out.Attrs |= AttrUnderline
	}
	return out
}

// vtColor maps an x/vt colour to a Color without losing information: ANSI
// and 256-colour indexes stay indexed, anything else becomes RGB, and nil
// or a fully transparent colour is the default.
func vtColor(c color.Color) Color {
	switch v := c.(type) {
	case nil:
		return ColorDefault
	case ansi.BasicColor:
		return IndexedColor(uint8(v))
	case ansi.IndexedColor:
		return IndexedColor(uint8(v))
	}
	r, g, b, a := c.RGBA()
	if a == 0 {
		return ColorDefault
	}
	return RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}

// Synchronized reports whether the program is inside synchronized output
// (mode 2026).
func (e *VTEmulator) Synchronized() bool { return e.synced }
