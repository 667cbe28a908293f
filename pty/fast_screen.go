package pty

import "slices"

// fline is a screen row: its cells and a bound on how many of them, from
// the left, may differ from the zero cell, so clearing and trimming the
// row cost what was written to it rather than its width.
type fline struct {
	c    []fcell
	used int
}

// fill sets columns x0 up to x1 of the row to c.
func (l *fline) fill(x0, x1 int, c fcell) {
	switch {
	case c != fcell{}:
		for i := range l.c[x0:x1] {
			l.c[x0+i] = c
		}
		l.used = max(l.used, x1)
	case x1 >= l.used:
		clear(l.c[x0:max(l.used, x0)])
		l.used = min(l.used, x0)
	default:
		clear(l.c[x0:x1])
	}
}

// fscreen is the primary or the alternate screen: its rows, its scroll
// region (top and bot, inclusive) and the cursor DECSC saved on it.
type fscreen struct {
	lines    []fline
	top, bot int
	saved    fcursor
}

// reset blanks the screen, forgets its saved cursor and makes the whole
// screen the scroll region.
func (s *fscreen) reset(cols, rows int) {
	cells := make([]fcell, cols*rows)
	s.lines = make([]fline, rows)
	for y := range s.lines {
		s.lines[y].c = cells[y*cols : (y+1)*cols : (y+1)*cols]
	}
	s.top, s.bot, s.saved = 0, rows-1, fcursor{}
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
		row[x] = fcell{fg: row[x].fg, bg: row[x].bg, attrs: row[x].attrs}
	}
	if row[x-1].flags&cellWide != 0 && (x == len(row) || row[x].flags&cellCont == 0) {
		row[x-1] = fcell{fg: row[x-1].fg, bg: row[x-1].bg, attrs: row[x-1].attrs}
	}
}

// scrollUp moves rows top+n…bot of the active screen up to top and blanks
// the n rows freed at the bottom. With history set, rows leaving the top
// of the primary screen go to the scrollback.
func (e *FastEmulator) scrollUp(top, bot, n int, history bool) {
	n = min(n, bot-top+1)
	lines := e.scr.lines[top : bot+1]
	if history && top == 0 && e.scr == e.prim {
		for i := range n {
			e.sb.push(&lines[i])
		}
	}
	if n == 1 {
		first := lines[0]
		copy(lines, lines[1:])
		lines[len(lines)-1] = first
	} else {
		rotate(lines, n)
	}
	e.blankLines(lines[len(lines)-n:])
}

// scrollDown moves rows top…bot-n of the active screen down to bot and
// blanks the n rows freed at the top.
func (e *FastEmulator) scrollDown(top, bot, n int) {
	n = min(n, bot-top+1)
	lines := e.scr.lines[top : bot+1]
	rotate(lines, len(lines)-n)
	e.blankLines(lines[:n])
}

// blankLines erases whole rows.
func (e *FastEmulator) blankLines(lines []fline) {
	for i := range lines {
		lines[i].fill(0, e.cols, e.blank())
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
// margin (IND, LF).
func (e *FastEmulator) index() {
	e.cur.wrap = false
	switch {
	case e.cur.y == e.scr.bot:
		e.scrollUp(e.scr.top, e.scr.bot, 1, true)
	case e.cur.y < e.rows-1:
		e.cur.y++
	}
}

// reverseIndex moves the cursor up a line, scrolling the region down at
// its top margin (RI).
func (e *FastEmulator) reverseIndex() {
	e.cur.wrap = false
	switch {
	case e.cur.y == e.scr.top:
		e.scrollDown(e.scr.top, e.scr.bot, 1)
	case e.cur.y > 0:
		e.cur.y--
	}
}

// insertLines inserts (IL) or deletes (DL, n < 0) lines at the cursor row
// inside the scroll region; deleted lines do not go to the scrollback.
func (e *FastEmulator) insertLines(n int) {
	if e.cur.y < e.scr.top || e.cur.y > e.scr.bot {
		return
	}
	if n > 0 {
		e.scrollDown(e.cur.y, e.scr.bot, n)
	} else {
		e.scrollUp(e.cur.y, e.scr.bot, -n, false)
	}
	e.moveTo(0, e.cur.y)
}

// insertCells shifts the cells of row l from x on right by n, blanking
// the n cells opened at x with c; cells pushed past the end are lost.
func insertCells(l *fline, x, n int, c fcell) {
	n = min(n, len(l.c)-x)
	copy(l.c[x+n:], l.c[x:])
	l.used = min(l.used+n, len(l.c))
	l.fill(x, x+n, c)
	splitWide(l.c, x)
	splitWide(l.c, x+n)
	splitWide(l.c, len(l.c))
}

// insertChars inserts (ICH) or deletes (DCH, n < 0) cells at the cursor;
// deleting shifts the rest of the line left and blanks its end.
func (e *FastEmulator) insertChars(n int) {
	l, x := &e.scr.lines[e.cur.y], e.cur.x
	e.cur.wrap = false
	if n > 0 {
		insertCells(l, x, n, e.blank())
		return
	}
	n = min(-n, e.cols-x)
	copy(l.c[x:], l.c[x+n:])
	l.fill(e.cols-n, e.cols, e.blank())
	splitWide(l.c, x)
	splitWide(l.c, e.cols-n)
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
		l.c, l.used = l.c[:cols], min(l.used, cols)
		splitWide(l.c, cols)
		lines[y] = l
	}
	s.lines, s.top, s.bot = lines, 0, rows-1
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
