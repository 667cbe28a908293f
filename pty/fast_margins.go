package pty

// hasLRMargins reports whether left and right margins narrower than the
// screen are in force, which sends scrolling down the slower path that
// moves cells instead of rows. Margins are the whole width while DECLRMM
// is off, which the common path checks first.
func (e *FastEmulator) hasLRMargins() bool {
	return e.lrmm && (e.scr.left != 0 || e.scr.right != e.cols-1)
}

// setLRMode sets or resets DECLRMM (mode 69), which lets DECSLRM set left
// and right margins; resetting it makes both screens' margins the whole
// width again, as in xterm.
func (e *FastEmulator) setLRMode(on bool) {
	e.lrmm = on
	if !on {
		e.prim.left, e.prim.right = 0, e.cols-1
		e.alt.left, e.alt.right = 0, e.cols-1
	}
}

// setLRMargins sets the left and right margins to columns left…right,
// counted from 1, and homes the cursor (DECSLRM). A missing or too large
// right margin is the last column; margins that leave fewer than two
// columns are ignored.
func (e *FastEmulator) setLRMargins(left, right int) {
	if l, r, ok := margins(left, right, e.cols); ok {
		e.scr.left, e.scr.right = l, r
		e.cursorTo(0, 0)
	}
}

// scrollColumns scrolls the rectangle of rows top…bot between the left and
// right margins up by n rows, or down by -n, blanking the rows it frees.
// Wide characters that straddle a margin are blanked first, as xterm
// does, so no half moves without the other. Line flags stay with their
// rows, and nothing goes to the scrollback.
func (e *FastEmulator) scrollColumns(top, bot, n int) {
	left, end := e.scr.left, e.scr.right+1
	lines := e.scr.lines
	for y := top; y <= bot; y++ {
		cutWide(lines[y].c, left)
		cutWide(lines[y].c, end)
	}
	if n > 0 {
		for y := top; y+n <= bot; y++ {
			copyColumns(&lines[y], &lines[y+n], left, end)
		}
		top = bot - n + 1
	} else {
		n = -n
		for y := bot; y-n >= top; y-- {
			copyColumns(&lines[y], &lines[y-n], left, end)
		}
		bot = top + n - 1
	}
	for y := top; y <= bot; y++ {
		lines[y].fill(left, end, e.blank())
	}
}

// cutWide blanks, keeping their colours and attributes, both halves of a
// wide character that the boundary before column x of row splits.
func cutWide(row []fcell, x int) {
	if x > 0 && x < len(row) && row[x].flags&cellCont != 0 {
		row[x-1], row[x] = orphan(row[x-1]), orphan(row[x])
	}
}

// copyColumns copies columns left up to end of row src into row dst.
func copyColumns(dst, src *fline, left, end int) {
	copy(dst.c[left:end], src.c[left:end])
	dst.extend(min(int(src.used), end))
}

// shiftColumns inserts n blank columns at column at (DECIC, DECBI), or
// deletes -n columns there (DECDC, DECFI), in every row of the scroll
// region, moving the columns up to the right margin. It does nothing
// while the cursor is outside the scroll region or the margins.
func (e *FastEmulator) shiftColumns(at, n int) {
	if e.cur.y < e.scr.top || e.cur.y > e.scr.bot || !e.inMargins() {
		return
	}
	end := e.scr.right + 1
	for y := e.scr.top; y <= e.scr.bot; y++ {
		if n > 0 {
			insertCells(&e.scr.lines[y], at, end, n, e.blank())
		} else {
			deleteCells(&e.scr.lines[y], at, end, -n, e.blank())
		}
	}
}

// backIndex performs DECBI: at the left margin it shifts the region's
// columns right by one, opening a blank column there; elsewhere it moves
// the cursor left as BS does.
func (e *FastEmulator) backIndex() {
	if e.cur.x == e.scr.left {
		e.shiftColumns(e.scr.left, 1)
		return
	}
	e.cursorBack(1)
}

// forwardIndex performs DECFI: at the right margin it shifts the region's
// columns left by one, opening a blank column there; elsewhere it moves
// the cursor right as CUF does.
func (e *FastEmulator) forwardIndex() {
	if e.cur.x == e.scr.right {
		e.shiftColumns(e.scr.left, -1)
		return
	}
	e.cursorForward(1)
}
