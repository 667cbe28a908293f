package pty

import (
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// savedPrimary is the primary screen as it was when the program switched
// to the alternate screen. x/vt resizes both screens at once and cuts the
// rows below the new height from the hidden primary screen too, so a
// shrink while vim runs would lose the shell prompt waiting behind it.
type savedPrimary struct {
	lines   []uv.Line
	cursorY int
	resized bool
}

// Resize changes the screen size. When rows shrink below the cursor row on
// the primary screen, the top lines move into the scrollback first, so the
// cursor line (the shell prompt) ends on the last row instead of being cut
// off. On the alternate screen the primary screen is repaired the same way
// when the program leaves it.
func (e *VTEmulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	oldCols, oldRows := e.Size()
	if cols == oldCols && rows == oldRows {
		return
	}
	if e.emu.IsAltScreen() {
		if e.primary != nil {
			e.primary.resized = true
		}
	} else if cur := e.emu.CursorPosition(); rows < oldRows && cur.Y >= rows {
		n := cur.Y - rows + 1
		for y := range n {
			e.emu.Scrollback().Push(e.row(y, oldCols))
		}
		for y := range rows {
			e.paintRow(y, e.row(y+n, oldCols), oldCols)
		}
	}
	// x/vt clamps the cursor to the last row, which now holds the cursor
	// line.
	e.emu.Resize(cols, rows)
	e.trimScrollback()
}

// row returns a copy of the first cols cells of visible row y.
func (e *VTEmulator) row(y, cols int) uv.Line {
	line := make(uv.Line, cols)
	for x := range cols {
		if c := e.emu.CellAt(x, y); c != nil {
			line[x] = *c
		}
	}
	return line
}

// paintRow replaces visible row y with line, cut to cols cells. The
// placeholder cells behind wide characters are skipped: writing a wide
// character already sets them.
func (e *VTEmulator) paintRow(y int, line uv.Line, cols int) {
	for x := range cols {
		e.emu.SetCell(x, y, nil)
	}
	for x := range min(cols, len(line)) {
		if line[x].IsZero() {
			continue
		}
		c := line[x]
		e.emu.SetCell(x, y, &c)
	}
}

// setsAltScreen reports whether DECSET params switch to the alternate
// screen.
func setsAltScreen(params ansi.Params) bool {
	for _, p := range params {
		switch ansi.DECMode(p.Param(-1)) {
		case ansi.ModeAltScreen, ansi.ModeAltScreenSaveCursor:
			return true
		}
	}
	return false
}

// savePrimary records the primary screen just before the switch to the
// alternate screen.
func (e *VTEmulator) savePrimary() {
	cols, rows := e.Size()
	sp := &savedPrimary{lines: make([]uv.Line, rows), cursorY: e.emu.CursorPosition().Y}
	for y := range rows {
		sp.lines[y] = e.row(y, cols)
	}
	e.primary = sp
}

// altScreenChanged runs when the alternate screen is entered or left.
// Leaving it after a resize repaints the primary screen from the copy
// taken on entry, scrolled so the cursor line is on screen, and lets
// x/vt's Resize clamp the cursor onto it.
func (e *VTEmulator) altScreenChanged(on bool) {
	sp := e.primary
	if on || sp == nil {
		return
	}
	e.primary = nil
	if !sp.resized {
		return
	}
	cols, rows := e.Size()
	n := max(sp.cursorY-rows+1, 0)
	for y := range n {
		e.emu.Scrollback().Push(sp.lines[y])
	}
	for y := range rows {
		var line uv.Line
		if y+n < len(sp.lines) {
			line = sp.lines[y+n]
		}
		e.paintRow(y, line, cols)
	}
	e.emu.Resize(cols, rows)
}
