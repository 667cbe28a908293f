package pty

import "slices"

// fline is a screen row: its cells, a bound on how many of them, from the
// left, may differ from the zero cell, so clearing and trimming the row
// cost what was written to it rather than its width, and its line flags.
type fline struct {
	c []fcell
	// used is an int32 so that the flags fit in the padding: scrolling
	// moves the row headers of the whole region, so they stay 32 bytes.
	used  int32
	flags uint8
}

// extend records that cells up to column x may now be set.
func (l *fline) extend(x int) {
	l.used = max(l.used, int32(x))
}

// The fline flags, which go with a row into the scrollback.
const (
	// lineWrapped marks a row that autowrap continued on the next row;
	// reverse wraparound (mode 45) goes back onto such rows only.
	lineWrapped uint8 = 1 << iota
	// linePrompt marks a row on which a shell prompt started (OSC 133;A).
	linePrompt
)

// fill sets columns x0 up to x1 of the row to c.
func (l *fline) fill(x0, x1 int, c fcell) {
	switch {
	case c != fcell{}:
		for i := range l.c[x0:x1] {
			l.c[x0+i] = c
		}
		l.extend(x1)
	case x1 >= int(l.used):
		clear(l.c[x0:max(int(l.used), x0)])
		l.used = min(l.used, int32(x0))
	default:
		clear(l.c[x0:x1])
	}
}

// fscreen is the primary or the alternate screen: its rows, its scroll
// region (top and bot, inclusive), its left and right margins (inclusive;
// the whole width unless DECLRMM is on), the cursor DECSC saved on it and
// whether one was saved (DECRQM 1048 reports it), and its stack of kitty
// keyboard flags, each screen having its own as the protocol asks.
type fscreen struct {
	lines       []fline
	top, bot    int
	left, right int
	saved       fcursor
	hasSaved    bool
	keys        kittyStack
}

// save records c as the saved cursor (DECSC).
func (s *fscreen) save(c fcursor) {
	s.saved, s.hasSaved = c, true
}

// reset blanks the screen, forgets its saved cursor and makes the whole
// screen the scroll region.
func (s *fscreen) reset(cols, rows int) {
	cells := make([]fcell, cols*rows)
	s.lines = make([]fline, rows)
	for y := range s.lines {
		s.lines[y].c = cells[y*cols : (y+1)*cols : (y+1)*cols]
	}
	s.top, s.bot, s.left, s.right = 0, rows-1, 0, cols-1
	s.saved, s.hasSaved, s.keys = fcursor{}, false, kittyStack{}
}

// blank returns the cell erase operations fill with: a blank with the
// pen's background colour (xterm's background colour erase).
func (e *FastEmulator) blank() fcell {
	return fcell{bg: e.cur.pen.bg}
}

// splitWide blanks the orphaned half of a wide character that a write or
// erase ending or starting at column x of row has cut in two.
func splitWide(row []fcell, x int) {
	if x <= 0 || x > len(row) {
		return
	}
	if x < len(row) && row[x].flags&cellCont != 0 && row[x-1].flags&cellWide == 0 {
		row[x] = orphan(row[x])
	}
	if row[x-1].flags&cellWide != 0 && (x == len(row) || row[x].flags&cellCont == 0) {
		row[x-1] = orphan(row[x-1])
	}
}

// orphan returns the blank that replaces half of a wide character cut in
// two: it keeps the colours and attributes.
func orphan(c fcell) fcell {
	return fcell{fg: c.fg, bg: c.bg, attrs: c.attrs}
}

// scrollUp moves rows top+n…bot of the active screen up to top and blanks
// the n rows freed at the bottom; with left and right margins, only their
// columns move. With history set, rows leaving the top of the primary
// screen go to the scrollback, unless margins cut them.
func (e *FastEmulator) scrollUp(top, bot, n int, history bool) {
	n = min(n, bot-top+1)
	if e.hasLRMargins() {
		e.scrollColumns(top, bot, n)
		return
	}
	lines := e.scr.lines[top : bot+1]
	if history && top == 0 && e.scr == e.prim {
		for i := range n {
			e.sb.push(&lines[i])
		}
	}
	if n == 1 {
		// The common case, a line at a time, blanks the row here rather
		// than through blankLines, which is too big to inline.
		first := lines[0]
		copy(lines, lines[1:])
		last := &lines[len(lines)-1]
		*last = first
		last.fill(0, e.cols, e.blank())
		last.flags = 0
		return
	}
	rotate(lines, n)
	e.blankLines(lines[len(lines)-n:])
}

// scrollDown moves rows top…bot-n of the active screen down to bot and
// blanks the n rows freed at the top; with left and right margins, only
// their columns move.
func (e *FastEmulator) scrollDown(top, bot, n int) {
	n = min(n, bot-top+1)
	if e.hasLRMargins() {
		e.scrollColumns(top, bot, -n)
		return
	}
	lines := e.scr.lines[top : bot+1]
	rotate(lines, len(lines)-n)
	e.blankLines(lines[:n])
}

// blankLines erases whole rows and their line flags.
func (e *FastEmulator) blankLines(lines []fline) {
	for i := range lines {
		lines[i].fill(0, e.cols, e.blank())
		lines[i].flags = 0
	}
}

// rotate turns rows left by n places with three reversals: only the row
// headers move, never the cells.
func rotate(rows []fline, n int) {
	slices.Reverse(rows[:n])
	slices.Reverse(rows[n:])
	slices.Reverse(rows)
}

// index moves the cursor down a line, scrolling the region at its bottom
// margin when the cursor is between the left and right margins (IND,
// LF).
func (e *FastEmulator) index() {
	e.cur.wrap = false
	switch {
	case e.cur.y == e.scr.bot:
		if e.inMargins() {
			e.scrollUp(e.scr.top, e.scr.bot, 1, true)
		}
	case e.cur.y < e.rows-1:
		e.cur.y++
	}
}

// reverseIndex moves the cursor up a line, scrolling the region down at
// its top margin when the cursor is between the left and right margins
// (RI).
func (e *FastEmulator) reverseIndex() {
	e.cur.wrap = false
	switch {
	case e.cur.y == e.scr.top:
		if e.inMargins() {
			e.scrollDown(e.scr.top, e.scr.bot, 1)
		}
	case e.cur.y > 0:
		e.cur.y--
	}
}

// insertLines inserts (IL) or deletes (DL, n < 0) lines at the cursor row
// inside the scroll region and margins, then moves the cursor to the left
// margin; deleted lines do not go to the scrollback.
func (e *FastEmulator) insertLines(n int) {
	if e.cur.y < e.scr.top || e.cur.y > e.scr.bot || !e.inMargins() {
		return
	}
	if n > 0 {
		e.scrollDown(e.cur.y, e.scr.bot, n)
	} else {
		e.scrollUp(e.cur.y, e.scr.bot, -n, false)
	}
	e.moveTo(e.scr.left, e.cur.y)
}

// insertCells shifts the cells of row l from x up to end right by n,
// blanking the n cells opened at x with c; cells pushed past end are
// lost.
func insertCells(l *fline, x, end, n int, c fcell) {
	n = min(n, end-x)
	copy(l.c[x+n:end], l.c[x:end])
	if used := int(l.used); used > x {
		l.extend(min(used+n, end))
	}
	l.fill(x, x+n, c)
	splitWide(l.c, x)
	splitWide(l.c, x+n)
	splitWide(l.c, end)
}

// deleteCells removes n cells of row l at x, shifting the cells up to end
// left and blanking the n cells freed before end with c.
func deleteCells(l *fline, x, end, n int, c fcell) {
	n = min(n, end-x)
	copy(l.c[x:end], l.c[x+n:end])
	l.fill(end-n, end, c)
	if x == 0 && l.c[0].flags&cellCont != 0 {
		// A right half moved to the start of the row, which splitWide
		// does not look at.
		l.c[0] = orphan(l.c[0])
	}
	splitWide(l.c, x)
	splitWide(l.c, end-n)
	splitWide(l.c, end)
}

// insertChars inserts (ICH) or deletes (DCH, n < 0) cells at the cursor,
// up to the right margin; it does nothing while the cursor is outside the
// margins.
func (e *FastEmulator) insertChars(n int) {
	e.cur.wrap = false
	if !e.inMargins() {
		return
	}
	l, x, end := &e.scr.lines[e.cur.y], e.cur.x, e.scr.right+1
	if n > 0 {
		insertCells(l, x, end, n, e.blank())
	} else {
		deleteCells(l, x, end, -n, e.blank())
	}
}

// eraseCells blanks columns x0 up to x1 of row y (ECH and the pieces of
// EL and ED).
func (e *FastEmulator) eraseCells(y, x0, x1 int) {
	x0, x1 = max(x0, 0), min(x1, e.cols)
	if x0 < x1 {
		l := &e.scr.lines[y]
		l.fill(x0, x1, e.blank())
		splitWide(l.c, x0)
		splitWide(l.c, x1)
		if x1 == e.cols {
			// With its end erased the row no longer runs on.
			l.flags &^= lineWrapped
		}
	}
	e.cur.wrap = false
}

// eraseLine erases from the cursor to the end of the line (0), from its
// start to the cursor (1) or the whole line (2) (EL).
func (e *FastEmulator) eraseLine(mode int) {
	switch mode {
	case 0:
		e.eraseCells(e.cur.y, e.cur.x, e.cols)
	case 1:
		e.eraseCells(e.cur.y, 0, e.cur.x+1)
	case 2:
		e.eraseCells(e.cur.y, 0, e.cols)
	}
}

// eraseDisplay erases below the cursor (0), above it (1), the whole screen
// (2) or the scrollback (3) (ED). Like tmux and x/vt, erasing the whole
// primary screen first moves its rows down to the last non-blank one into
// the scrollback.
func (e *FastEmulator) eraseDisplay(mode int) {
	from, to := 0, e.rows
	switch mode {
	case 0:
		e.eraseCells(e.cur.y, e.cur.x, e.cols)
		from = e.cur.y + 1
	case 1:
		e.eraseCells(e.cur.y, 0, e.cur.x+1)
		to = e.cur.y
	case 2:
		used := e.rows
		for used > 0 && !slices.ContainsFunc(e.scr.lines[used-1].c[:e.scr.lines[used-1].used], notBlank) {
			used--
		}
		if e.scr == e.prim {
			for i := range used {
				e.sb.push(&e.scr.lines[i])
			}
		}
	case 3:
		e.sb.start, e.sb.n = 0, 0
		return
	default:
		return
	}
	e.blankLines(e.scr.lines[from:to])
	e.cur.wrap = false
}

// Resize changes the screen size. On the primary screen, when the rows
// shrink past the cursor, the lines above it move into the scrollback so
// the cursor line ends on the last row; while the alternate screen is up
// the same is done to the primary screen around the cursor that 1049
// saved. Both screens keep their content otherwise, cut or padded, and the
// scroll regions reset to the whole screen.
func (e *FastEmulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	if cols == e.cols && rows == e.rows {
		return
	}
	anchor := &e.cur
	if e.scr == e.alt && e.altSavedCursor {
		anchor = &e.prim.saved
	}
	shift := max(anchor.y-rows+1, 0)
	for i := range shift {
		e.sb.push(&e.prim.lines[i])
	}
	if anchor == &e.cur {
		e.cur.y -= shift
	}
	e.prim.resize(cols, rows, shift)
	e.alt.resize(cols, rows, 0)
	e.tabs = defaultTabs(e.tabs[:min(e.cols, cols)], e.cols, cols)
	e.cols, e.rows = cols, rows
	e.restoreCursor(e.cur)
	e.cur.wrap = false
}

// resize cuts or pads the screen to cols × rows, dropping the first
// shift rows and moving the saved cursor with them.
func (s *fscreen) resize(cols, rows, shift int) {
	lines := make([]fline, rows)
	for y := range lines {
		if y+shift >= len(s.lines) {
			lines[y].c = make([]fcell, cols)
			continue
		}
		l := s.lines[y+shift]
		if cap(l.c) < cols {
			l.c = append(make([]fcell, 0, cols), l.c...)
		}
		if len(l.c) < cols {
			clear(l.c[len(l.c):cols])
		}
		l.c, l.used = l.c[:cols], min(l.used, int32(cols))
		splitWide(l.c, cols)
		lines[y] = l
	}
	s.lines, s.top, s.bot, s.left, s.right = lines, 0, rows-1, 0, cols-1
	s.saved.x, s.saved.y = min(s.saved.x, cols-1), min(max(s.saved.y-shift, 0), rows-1)
}

// defaultTabs appends the default tab stops, every eighth column, for
// columns from up to cols.
func defaultTabs(tabs []bool, from, cols int) []bool {
	for x := from; x < cols; x++ {
		tabs = append(tabs, x > 0 && x%8 == 0)
	}
	return tabs
}
