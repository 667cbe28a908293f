package pty

import "strconv"

// reply queues an answer to a query for the program.
func (e *FastEmulator) reply(s string) {
	e.in.push([]byte(s))
}

// reportMode answers DECRQM for ANSI mode n, or DEC private mode n when
// dec is set: 1 set, 2 reset, 4 permanently reset, 0 unknown.
func (e *FastEmulator) reportMode(n int, dec bool) {
	v, prefix := e.ansiModeReport(n), "\x1b["
	if dec {
		v = 0
		if on, known := e.decMode(n); known {
			v = 2 - btoi(on)
		}
		prefix += "?"
	}
	e.reply(prefix + strconv.Itoa(n) + ";" + strconv.Itoa(v) + "$y")
}

// ansiModeReport returns the DECRQM answer for ANSI mode n: IRM (4) and
// LNM (20) are kept; the modes xterm reports as permanently reset (GATM,
// SRTM, VEM, HEM, PUM, FEAM to EBM) are permanently reset here too.
func (e *FastEmulator) ansiModeReport(n int) int {
	switch {
	case n == 4:
		return 2 - btoi(e.insert)
	case n == 20:
		return 2 - btoi(e.newline)
	case n == 1 || n == 5 || n == 7 || n == 10 || n == 11 || n >= 13 && n <= 19:
		return 4
	}
	return 0
}

// decDeviceStatus answers DECDSR (CSI ? n n) as a VT220 with no
// printer, no locator, no macros and one session answers: the cursor
// position (6), the printer (15: none), the user-defined keys (25:
// unlocked), the keyboard (26: North American), the DEC locator (53, 55:
// none; 56: its type unknown), macro space (62: none) and its checksum
// (63, for request id param 2), data integrity (75: no errors) and
// sessions (85: not configured for several).
func (e *FastEmulator) decDeviceStatus(n int) {
	switch n {
	case 6:
		e.reply("\x1b[?" + e.cursorReport() + "R")
	case 15:
		e.reply("\x1b[?13n")
	case 25:
		e.reply("\x1b[?20n")
	case 26:
		e.reply("\x1b[?27;1n")
	case 53, 55:
		e.reply("\x1b[?50n")
	case 56:
		e.reply("\x1b[?57;0n")
	case 62:
		e.reply("\x1b[0*{")
	case 63:
		e.reply("\x1bP" + strconv.Itoa(e.param(1, 0)) + "!~0000\x1b\\")
	case 75:
		e.reply("\x1b[?70n")
	case 85:
		e.reply("\x1b[?83n")
	}
}

// btoi returns 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// windowOp performs the XTWINOPS a program can use without a window:
// saving (22) and restoring (23) the title, and reporting the text area in
// pixels (14) and in characters (18), the cell size in pixels (16) and the
// screen size in characters (19), which is the text area's. The pixel
// sizes come from the cell size (SetCellSize).
func (e *FastEmulator) windowOp(op int) {
	switch op {
	case 14:
		e.reply(sizeReport(4, e.rows*e.cellH, e.cols*e.cellW))
	case 16:
		e.reply(sizeReport(6, e.cellH, e.cellW))
	case 18, 19:
		e.reply(sizeReport(op-10, e.rows, e.cols))
	case 22:
		if len(e.titles) < 16 {
			e.titles = append(e.titles, e.title)
		}
	case 23:
		if n := len(e.titles); n > 0 {
			e.title, e.titles = e.titles[n-1], e.titles[:n-1]
		}
	}
}

// sizeReport returns the XTWINOPS report CSI kind ; height ; width t.
func sizeReport(kind, height, width int) string {
	return "\x1b[" + strconv.Itoa(kind) + ";" + strconv.Itoa(height) + ";" + strconv.Itoa(width) + "t"
}

// Default cell size in pixels, until the owner sets the real one with
// SetCellSize: a common monospace cell at the usual font sizes, twice as
// tall as wide. Programs divide pixel sizes by the cell count to size
// images, so the proportion matters more than the values.
const (
	defaultCellWidth  = 10
	defaultCellHeight = 20
)

// SetCellSize sets the size in pixels of one cell of the screen, which
// XTWINOPS 14 and 16 report; sizes not above zero keep the current one.
// The emulator cannot know it: its owner may learn it from the outer
// terminal. Until then a cell is 10 × 20 pixels.
func (e *FastEmulator) SetCellSize(width, height int) {
	if width > 0 && height > 0 {
		e.cellW, e.cellH = width, height
	}
}

// setANSIMode sets or resets an ANSI mode: IRM (4) and LNM (20).
func (e *FastEmulator) setANSIMode(n int, on bool) {
	switch n {
	case 4:
		e.insert = on
	case 20:
		e.newline = on
	}
}

// setDECMode sets or resets a DEC private mode. Modes not listed are
// ignored.
func (e *FastEmulator) setDECMode(n int, on bool) {
	if e.modes.setMouseMode(n, on) {
		return
	}
	switch n {
	case 1:
		e.modes.AppCursor = on
	case 6:
		e.cur.origin = on
		e.cursorTo(0, 0)
	case 7:
		e.autowrap = on
		e.cur.wrap = e.cur.wrap && on
	case 25:
		e.cursorVisible = on
	case 45:
		e.revWrap = on
	case 69:
		e.setLRMode(on)
	case 1045:
		e.revWrapExt = on
	case 47, 1047, 1049:
		e.switchScreen(n, on)
	case 1004:
		e.modes.FocusEvents = on
	case 1048:
		if on {
			e.scr.save(e.cur)
		} else {
			e.restoreCursor(e.scr.saved)
		}
	case 2004:
		e.modes.BracketedPaste = on
	case 2026:
		e.synced = on
	}
}

// decMode returns the state of a DEC private mode for DECRQM, and false
// when the mode is not recognized.
func (e *FastEmulator) decMode(n int) (on, known bool) {
	if on, known := e.modes.mouseModeState(n); known {
		return on, true
	}
	switch n {
	case 1:
		return e.modes.AppCursor, true
	case 6:
		return e.cur.origin, true
	case 7:
		return e.autowrap, true
	case 25:
		return e.cursorVisible, true
	case 45:
		return e.revWrap, true
	case 69:
		return e.lrmm, true
	case 1045:
		return e.revWrapExt, true
	case 47, 1047, 1049:
		return e.scr == e.alt, true
	case 1004:
		return e.modes.FocusEvents, true
	case 1048:
		return e.scr.hasSaved, true
	case 2004:
		return e.modes.BracketedPaste, true
	case 2026:
		return e.synced, true
	}
	return false, false
}

// softReset performs DECSTR: modes, margins, pen, saved cursor, cursor
// style and, as in xterm, the palette return to their defaults while the
// screen keeps its content.
func (e *FastEmulator) softReset() {
	e.insert, e.autowrap, e.cursorVisible = false, true, true
	e.modes.AppCursor = false
	e.cursorStyle = 0
	e.pal = palette{}
	x, y := e.cur.x, e.cur.y
	e.cur = fcursor{x: x, y: y}
	e.scr.top, e.scr.bot = 0, e.rows-1
	e.setLRMode(false)
	e.scr.saved, e.scr.hasSaved = fcursor{}, false
}

// setConformance performs DECSCL: it selects conformance level 61 (VT100)
// to 65 (VT500) and soft-resets the terminal, as xterm does. The level is
// only reported (DECRQSS); every feature stays available at every level,
// so a program that lowers it still gets DECRQM answers. Replies are
// always 7-bit, so the second parameter, 8-bit controls, is ignored.
func (e *FastEmulator) setConformance(level int) {
	if level >= 61 && level <= 65 {
		e.softReset()
		e.level = uint8(level)
	}
}

// margins reads a pair of margins counted from 1, as DECSTBM and DECSLRM
// give them, on an axis of n cells, and returns them counted from 0: a
// second one out of range is the last cell, and a pair that leaves fewer
// than two cells between them is refused (false).
func margins(lo, hi, n int) (int, int, bool) {
	lo = max(lo, 1)
	if hi < 1 || hi > n {
		hi = n
	}
	return lo - 1, hi - 1, lo < hi
}

// setMargins sets the scroll region to rows top…bot, counted from 1, and
// homes the cursor (DECSTBM).
func (e *FastEmulator) setMargins(top, bot int) {
	if t, b, ok := margins(top, bot, e.rows); ok {
		e.scr.top, e.scr.bot = t, b
		e.cursorTo(0, 0)
	}
}

// alignmentTest fills the screen with E, resets the margins and homes the
// cursor (DECALN).
func (e *FastEmulator) alignmentTest() {
	for i := range e.scr.lines {
		e.scr.lines[i].fill(0, e.cols, fcell{r: 'E'})
	}
	e.scr.top, e.scr.bot, e.scr.left, e.scr.right = 0, e.rows-1, 0, e.cols-1
	e.moveTo(0, 0)
}

// switchScreen enters (on) or leaves the alternate screen for mode 47,
// 1047 or 1049. Entering with 1047 or 1049 clears it; 1049 also saves the
// cursor on entry and restores it on exit.
func (e *FastEmulator) switchScreen(mode int, on bool) {
	if on == (e.scr == e.alt) {
		return
	}
	if !on {
		e.scr = e.prim
		if mode == 1049 {
			e.restoreCursor(e.prim.saved)
		}
		return
	}
	if mode == 1049 {
		e.prim.save(e.cur)
	}
	e.altSavedCursor = mode == 1049
	e.scr = e.alt
	if mode != 47 {
		for i := range e.alt.lines {
			e.alt.lines[i].fill(0, e.cols, fcell{})
		}
	}
}

// Synchronized reports whether the program is inside synchronized output
// (mode 2026).
func (e *FastEmulator) Synchronized() bool { return e.synced }
