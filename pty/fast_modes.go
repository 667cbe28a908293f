package pty

import "strconv"

// fcursor is the cursor with everything DECSC saves alongside it.
type fcursor struct {
	x, y int
	// wrap is the pending-wrap state: the last column was just written
	// with autowrap on, and the next character goes to the next line.
	wrap bool
	// pen is the template for new cells: colours and attributes.
	pen fcell
	// origin is DECOM: row numbers count from the scroll region's top.
	origin bool
	// dec holds, for G0 to G3, whether the DEC special graphics set is
	// designated there instead of ASCII.
	dec [4]bool
	// gl is the set invoked into GL by SI, SO, LS2 or LS3.
	gl uint8
}

// reply queues an answer to a query for the program.
func (e *FastEmulator) reply(s string) {
	e.in.push([]byte(s))
}

// cursorReport returns "row;col" for a cursor position report, the row
// counted from the scroll region's top in origin mode.
func (e *FastEmulator) cursorReport() string {
	y := e.cur.y
	if e.cur.origin {
		y -= e.scr.top
	}
	return strconv.Itoa(y+1) + ";" + strconv.Itoa(e.cur.x+1)
}

// reportMode answers DECRQM for mode n: 1 set, 2 reset, 0 unknown.
func (e *FastEmulator) reportMode(n int, dec bool) {
	state, known := false, true
	switch {
	case !dec && n == 4:
		state = e.insert
	case !dec && n == 20:
		state = e.newline
	case !dec:
		known = false
	default:
		state, known = e.decMode(n)
	}
	v, prefix := 0, "\x1b["
	if known {
		v = 2 - btoi(state)
	}
	if dec {
		prefix += "?"
	}
	e.reply(prefix + strconv.Itoa(n) + ";" + strconv.Itoa(v) + "$y")
}

// btoi returns 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// windowOp performs the XTWINOPS a program can use without a window:
// saving (22) and restoring (23) the title and reporting the text area
// size (18).
func (e *FastEmulator) windowOp(op int) {
	switch op {
	case 18:
		e.reply("\x1b[8;" + strconv.Itoa(e.rows) + ";" + strconv.Itoa(e.cols) + "t")
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
	case 47, 1047, 1049:
		e.switchScreen(n, on)
	case 1048:
		if on {
			e.scr.saved = e.cur
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
	case 47, 1047, 1049:
		return e.scr == e.alt, true
	case 2004:
		return e.modes.BracketedPaste, true
	case 2026:
		return e.synced, true
	}
	return false, false
}

// softReset performs DECSTR: modes, margins, pen and saved cursor return
// to their defaults while the screen keeps its content.
func (e *FastEmulator) softReset() {
	e.insert, e.autowrap, e.cursorVisible = false, true, true
	e.modes.AppCursor = false
	x, y := e.cur.x, e.cur.y
	e.cur = fcursor{x: x, y: y}
	e.scr.top, e.scr.bot = 0, e.rows-1
	e.scr.saved = fcursor{}
}

// moveTo puts the cursor at x, y clamped to the screen and clears the
// pending wrap.
func (e *FastEmulator) moveTo(x, y int) {
	e.cur.x = min(max(x, 0), e.cols-1)
	e.cur.y = min(max(y, 0), e.rows-1)
	e.cur.wrap = false
}

// cursorTo moves to column x and row y, counting rows from the scroll
// region's top and staying inside it in origin mode (CUP, VPA).
func (e *FastEmulator) cursorTo(x, y int) {
	if e.cur.origin {
		y = min(y+e.scr.top, e.scr.bot)
	}
	e.moveTo(x, y)
}

// topLimit returns the highest row CUU can reach: the top margin from
// inside the scroll region, else the first row.
func (e *FastEmulator) topLimit() int {
	if e.cur.y >= e.scr.top {
		return e.scr.top
	}
	return 0
}

// bottomLimit returns the lowest row CUD can reach: the bottom margin
// from inside the scroll region, else the last row.
func (e *FastEmulator) bottomLimit() int {
	if e.cur.y <= e.scr.bot {
		return e.scr.bot
	}
	return e.rows - 1
}

// tab moves the cursor n tab stops forward, or back when n < 0, stopping
// at the screen edges (HT, CHT, CBT).
func (e *FastEmulator) tab(n int) {
	x := e.cur.x
	for ; n > 0 && x < e.cols-1; n-- {
		x++
		for x < e.cols-1 && !e.tabs[x] {
			x++
		}
	}
	for ; n < 0 && x > 0; n++ {
		x--
		for x > 0 && !e.tabs[x] {
			x--
		}
	}
	e.moveTo(x, e.cur.y)
}

// clearTabs clears the tab stop at the cursor (0) or all of them (3).
func (e *FastEmulator) clearTabs(mode int) {
	switch mode {
	case 0:
		e.tabs[e.cur.x] = false
	case 3:
		clear(e.tabs)
	}
}

// setMargins sets the scroll region to rows top…bot, counted from 1, and
// homes the cursor (DECSTBM).
func (e *FastEmulator) setMargins(top, bot int) {
	top = max(top, 1)
	if bot < 1 || bot > e.rows {
		bot = e.rows
	}
	if top < bot {
		e.scr.top, e.scr.bot = top-1, bot-1
		e.cursorTo(0, 0)
	}
}

// restoreCursor makes c the cursor, clamped to the screen (DECRC).
func (e *FastEmulator) restoreCursor(c fcursor) {
	e.cur = c
	e.cur.x, e.cur.y = min(c.x, e.cols-1), min(c.y, e.rows-1)
	e.cur.wrap = c.wrap && c.x == e.cols-1
}

// alignmentTest fills the screen with E, resets the margins and homes the
// cursor (DECALN).
func (e *FastEmulator) alignmentTest() {
	for i := range e.scr.lines {
		e.scr.lines[i].fill(0, e.cols, fcell{r: 'E'})
	}
	e.scr.top, e.scr.bot = 0, e.rows-1
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
		e.prim.saved = e.cur
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
