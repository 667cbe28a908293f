// Package pty runs live shell terminals for kws shell panes: a process on a
// pseudo-terminal (creack/pty), a terminal emulator that turns its output
// into cells (behind the small Emulator interface: FastEmulator by
// default, charmbracelet/x/vt as VTEmulator),
// scrollback, key encoding, redraw coalescing and plain-text capture for
// copy mode and the vault.
//
// The package imports no UI toolkit: cells carry the package's own Color
// and Attr values and key presses are the package's own Key, so the UI
// layer converts them to and from its toolkit's types.
package pty

import (
	"fmt"
	"strings"
)

// Emulator names, as EmulatorByName and the --emulator flag take them.
const (
	// EmulatorFast is FastEmulator, the default.
	EmulatorFast = "fast"
	// EmulatorVT is VTEmulator, charmbracelet/x/vt.
	EmulatorVT = "x/vt"
)

// EmulatorByName returns the constructor of the emulator called name
// (EmulatorFast or EmulatorVT; empty means EmulatorFast).
func EmulatorByName(name string) (func(cols, rows, scrollback int) Emulator, error) {
	switch name {
	case "", EmulatorFast:
		return func(c, r, sb int) Emulator { return NewFastEmulator(c, r, sb) }, nil
	case EmulatorVT, "vt":
		return func(c, r, sb int) Emulator { return NewVTEmulator(c, r, sb) }, nil
	}
	return nil, fmt.Errorf("pty: unknown emulator %q (want %s or %s)", name, EmulatorFast, EmulatorVT)
}

// Attr is a bit set of text attributes of one cell.
type Attr uint8

// The text attributes a cell can carry.
const (
	AttrBold Attr = 1 << iota
	AttrItalic
	AttrUnderline
	AttrReverse
	AttrDim
	AttrStrikethrough
	AttrBlink
	AttrConceal
)

// Color is a cell colour: the pane's default colour, one of the 256
// indexed colours of the ANSI palette, or a 24-bit RGB colour. It is
// encoded in a uint32 as a kind in bits 24–25 and a value below them:
//
//	0x00000000            the default colour (ColorDefault, the zero value)
//	0x01000000 | n        indexed colour n, 0–255 (IndexedColor)
//	0x02000000 | r<<16 | g<<8 | b   RGB colour (RGBColor)
//
// Any value not built by IndexedColor or RGBColor counts as the default.
type Color uint32

// The kinds of Color, kept in bits 24–25.
const (
	colorIndexed Color = 1 << 24
	colorRGB     Color = 2 << 24
	colorKind    Color = 0xff << 24
)

// ColorDefault is the pane's default foreground or background colour; it is
// Color's zero value.
const ColorDefault Color = 0

// IndexedColor returns colour n of the 256-colour ANSI palette: 0–7 the
// standard colours, 8–15 their bright forms, 16–231 the colour cube and
// 232–255 the grey ramp.
func IndexedColor(n uint8) Color {
	return colorIndexed | Color(n)
}

// RGBColor returns the 24-bit colour with red r, green g and blue b.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the default colour, that is neither an
// indexed nor an RGB colour.
func (c Color) IsDefault() bool {
	k := c & colorKind
	return k != colorIndexed && k != colorRGB
}

// Index returns the palette index of an indexed colour, and false when c
// is not an indexed colour.
func (c Color) Index() (uint8, bool) {
	if c&colorKind != colorIndexed {
		return 0, false
	}
	return uint8(c), true
}

// RGB returns the red, green and blue components of an RGB colour, and
// false when c is not an RGB colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	if c&colorKind != colorRGB {
		return 0, 0, 0, false
	}
	return uint8(c >> 16), uint8(c >> 8), uint8(c), true
}

// String returns "default", "indexed(n)" or "#rrggbb".
func (c Color) String() string {
	if n, ok := c.Index(); ok {
		return fmt.Sprintf("indexed(%d)", n)
	}
	if r, g, b, ok := c.RGB(); ok {
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return "default"
}

// Cell is one screen position: a grapheme cluster with its display width
// and style. A blank cell holds a single space; the cells covered by the
// right half of a wide character have an empty Content and Width 0.
type Cell struct {
	// Content is the grapheme cluster shown in the cell.
	Content string
	// Width is the number of columns the content occupies (0, 1 or 2).
	Width int
	// Fg is the foreground colour; ColorDefault means the pane default.
	Fg Color
	// Bg is the background colour; ColorDefault means the pane default.
	Bg Color
	// Attrs holds bold, italic, underline and the other attributes.
	Attrs Attr
	// Link is the URI of the OSC 8 hyperlink the cell belongs to, "" for
	// none (VTEmulator keeps no links). It is the program's text, kept as
	// given but for URIs with control characters, which are refused: show
	// it escaped and open it only when the user asks.
	Link string
}

// BlankCell is the cell an emulator reports for an untouched position.
var BlankCell = Cell{Content: " ", Width: 1, Fg: ColorDefault, Bg: ColorDefault}

// Cursor is the emulator's cursor: a zero-based column and row on the
// visible screen and whether the running program wants it shown.
type Cursor struct {
	// X is the zero-based column.
	X int
	// Y is the zero-based row.
	Y int
	// Visible is false while the program has hidden the cursor (DECTCEM).
	Visible bool
	// Style is the shape the program asked for with DECSCUSR: 0 the
	// terminal's default, 1 and 2 a blinking and a steady block, 3 and 4
	// an underline, 5 and 6 a bar (vim's insert mode). VTEmulator keeps
	// none.
	Style uint8
}

// InputModes are the terminal modes that change how keys and pastes are
// encoded for the program.
type InputModes struct {
	// AppCursor is DECCKM: arrows, Home and End send SS3 sequences.
	AppCursor bool
	// BracketedPaste wraps pasted text in ESC[200~ … ESC[201~.
	BracketedPaste bool
	// Mouse is the mouse reporting the program asked for; MouseSGR
	// (mode 1006) reports it in the SGR encoding instead of the legacy one.
	Mouse    MouseTracking
	MouseSGR bool
	// FocusEvents is mode 1004: the program wants to hear the pane gain
	// and lose focus (Terminal.Focus sends CSI I and CSI O).
	FocusEvents bool
	// KittyFlags are the kitty keyboard protocol's progressive
	// enhancements the program turned on for the active screen; the
	// FastEmulator grants KittyDisambiguate only.
	KittyFlags uint8
}

// Emulator turns a program's output into a grid of cells and turns key
// presses into the bytes the program expects. Implementations are not safe
// for concurrent use, except Read, which one goroutine must call without
// pause for as long as the emulator lives: replies to the program's queries
// (DA, DSR) and all encoded input are delivered through it, and Write,
// SendKey, SendText and Paste block until it is read.
type Emulator interface {
	// Write feeds program output into the emulator.
	Write(p []byte) (int, error)
	// Resize changes the screen size. When the screen shrinks, the lines
	// above the cursor scroll into the scrollback so the cursor line stays
	// visible.
	Resize(cols, rows int)
	// Size returns the screen size in columns and rows.
	Size() (cols, rows int)
	// Cell returns the cell at column x, row y of the visible screen, or
	// BlankCell when the position is outside it.
	Cell(x, y int) Cell
	// Cursor returns the cursor position and visibility.
	Cursor() Cursor
	// AltScreen reports whether the alternate screen is active.
	AltScreen() bool
	// Synchronized reports whether the program is drawing a frame inside
	// synchronized output (mode 2026), which is shown once it ends.
	Synchronized() bool
	// Title returns the window title the program last set.
	Title() string
	// Modes returns the input modes the program has enabled.
	Modes() InputModes
	// SetDefaultColors sets the pane's default colours, the answers to
	// OSC 10 and 11 queries until the program sets its own.
	SetDefaultColors(c DefaultColors)
	// DefaultColors returns the default colours in force: those the
	// program set with OSC 10 or 11, else the pane's.
	DefaultColors() DefaultColors
	// SetClipboardHandler makes fn receive the text of the program's OSC
	// 52 requests to set the clipboard, called from Write; nil (the
	// default) ignores them. A query is never answered.
	SetClipboardHandler(fn func(text string))
	// SetAlertHandler makes fn hear the program asking for the user, called
	// from Write: a bell (text "") or a desktop notification, OSC 9 or
	// OSC 777;notify (its text, made safe to show as a title is); nil
	// (the default) ignores them. OSC 9;4 is a progress report, not one.
	SetAlertHandler(fn func(text string))
	// Scrollback returns the number of lines in the scrollback buffer.
	Scrollback() int
	// ScrollbackLine returns scrollback line i, 0 being the oldest, as cells
	// with trailing blanks dropped; nil when i is out of range.
	ScrollbackLine(i int) []Cell
	// SendKey encodes a key press for the program according to the current
	// input modes and queues it on Read.
	SendKey(k Key)
	// SendText queues raw bytes for the program on Read.
	SendText(text string)
	// Paste queues text for the program, bracketed when the program enabled
	// bracketed paste.
	Paste(text string)
	// Read returns bytes for the program: replies to its queries and
	// encoded input, in order. It returns io.EOF after Close.
	Read(p []byte) (int, error)
	// Close ends Read and releases the emulator.
	Close() error
}

// LineText returns the plain text of a row of cells with trailing spaces
// removed; the placeholder cells behind wide characters contribute nothing.
func LineText(cells []Cell) string {
	var b strings.Builder
	for _, c := range cells {
		if c.Width == 0 && c.Content == "" {
			continue
		}
		if c.Content == "" {
			b.WriteByte(' ')
			continue
		}
		b.WriteString(c.Content)
	}
	return strings.TrimRight(b.String(), " ")
}

// joinLines joins lines with newlines after dropping trailing empty lines.
func joinLines(lines []string) string {
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	return strings.Join(lines[:end], "\n")
}
