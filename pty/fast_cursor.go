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

// cursorReport returns "row;col" for a cursor position report, counted
// from the margins' top left corner in origin mode.
func (e *FastEmulator) cursorReport() string {
	x, y := e.originPos()
	return strconv.Itoa(y+1) + ";" + strconv.Itoa(x+1)
}

// originPos returns the cursor position as CUP counts it: from the
// margins' top left corner in origin mode, else from the screen's.
func (e *FastEmulator) originPos() (x, y int) {
	if e.cur.origin {
		return e.cur.x - e.scr.left, e.cur.y - e.scr.top
	}
	return e.cur.x, e.cur.y
}

// moveTo puts the cursor at x, y clamped to the screen and clears the
// pending wrap.
func (e *FastEmulator) moveTo(x, y int) {
	e.cur.x = min(max(x, 0), e.cols-1)
	e.cur.y = min(max(y, 0), e.rows-1)
	e.cur.wrap = false
}

// cursorTo moves to column x and row y, counted from the margins' top
// left corner and staying inside them in origin mode (CUP, CHA, VPA).
func (e *FastEmulator) cursorTo(x, y int) {
	if e.cur.origin {
		x = min(x+e.scr.left, e.scr.right)
		y = min(y+e.scr.top, e.scr.bot)
	}
	e.moveTo(x, y)
}

// carriageReturn moves the cursor to the left margin, or to the first
// column when it is left of the margin outside origin mode (CR).
func (e *FastEmulator) carriageReturn() {
	x := 0
	if e.lrmm && (e.cur.origin || e.cur.x >= e.scr.left) {
		x = e.scr.left
	}
	e.cur.x, e.cur.wrap = x, false
}

// cursorForward moves the cursor n columns right (CUF, HPR), stopping at
// the right margin, or at the screen's edge when it starts right of the
// margin.
func (e *FastEmulator) cursorForward(n int) {
	e.moveTo(min(e.cur.x+n, e.lineEnd()-1), e.cur.y)
}

// lineEnd returns the column after the last one text at the cursor may
// use: the right margin's from inside it, else the screen's.
func (e *FastEmulator) lineEnd() int {
	if e.cur.x <= e.scr.right {
		return e.scr.right + 1
	}
	return e.cols
}

// inMargins reports whether the cursor is between the left and right
// margins, which span the whole width while DECLRMM is off.
func (e *FastEmulator) inMargins() bool {
	return !e.lrmm || e.cur.x >= e.scr.left && e.cur.x <= e.scr.right
}

// cursorBack moves the cursor n columns left (BS, CUB), stopping at the
// left margin, or at the screen's edge when it starts left of the margin.
// With reverse wraparound, which needs autowrap too, it goes on from the
// right margin of the row above, as xterm (since patch 383) does: mode 45
// only onto a row that autowrap continued into this one, and mode 1045
// onto any row, from the top margin round to the bottom one. Either mode
// makes a pending wrap count as the first step.
func (e *FastEmulator) cursorBack(n int) {
	rev, ext := e.autowrap && e.revWrap, e.autowrap && e.revWrapExt
	left, right := e.scr.left, e.scr.right
	x, y := e.cur.x, e.cur.y
	if x < left {
		left = 0
	}
	if (rev || ext) && e.cur.wrap {
		n--
	} else {
		x--
	}
	for {
		if x < left {
			if !rev && !ext {
				x = left
				break
			}
			switch {
			case ext && y == e.scr.top:
				y = e.scr.bot + 1
			case ext && y == 0:
				// Above the scroll region the screen's top row wraps
				// round to its bottom row.
				y = e.rows
			}
			y--
			if !ext && (y < 0 || e.scr.lines[y].flags&lineWrapped == 0) {
				y, x = y+1, left
				break
			}
			x = right
		}
		if n--; n <= 0 {
			break
		}
		x--
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

// tab moves the cursor n tab stops forward, or back when n < 0 (HT, CHT,
// CBT). As in xterm, it stops at the right margin from inside it and at
// the left margin in origin mode, else at the screen's edges.
func (e *FastEmulator) tab(n int) {
	x, first, last := e.cur.x, 0, e.lineEnd()-1
	if e.cur.origin {
		first = e.scr.left
	}
	for ; n > 0 && x < last; n-- {
		x++
		for x < last && !e.tabs[x] {
			x++
		}
	}
	for ; n < 0 && x > first; n++ {
		x--
		for x > first && !e.tabs[x] {
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

// restoreCursor makes c the cursor, clamped to the screen (DECRC). The
// hyperlink open now stays open, as in kitty: it is not cursor state.
func (e *FastEmulator) restoreCursor(c fcursor) {
	c.pen.link = e.cur.pen.link
	e.cur = c
	e.cur.x, e.cur.y = min(c.x, e.cols-1), min(c.y, e.rows-1)
	e.cur.wrap = c.wrap && c.x == e.cols-1
}
