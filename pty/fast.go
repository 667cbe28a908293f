package pty

import "github.com/clipperhouse/displaywidth"

// fcell is one cell of a FastEmulator screen. It holds no pointers, so rows
// are cleared with a plain memory clear and the garbage collector never
// scans the screen or the scrollback.
type fcell struct {
	// r is the character; 0 is an erased cell, shown as a space.
	r rune
	// fg and bg are the foreground and background colours.
	fg, bg Color
	// mark holds up to two combining marks from the Basic Multilingual
	// Plane appended to r; 0 ends the list.
	mark [2]uint16
	// attrs holds the text attributes.
	attrs Attr
	// flags marks the two halves of a wide character and protection.
	flags uint8
	// link is the id of the hyperlink the cell belongs to in the
	// emulator's link table, 0 for none; the cell stays 20 bytes.
	link uint16
}

// The fcell flags.
const (
	// cellWide marks the left half of a wide character.
	cellWide uint8 = 1 << iota
	// cellCont marks the right half of a wide character, which shows
	// nothing of its own.
	cellCont
	// cellProtected marks a character DECSCA protected from selective
	// erase; the pen carries it while protection is on.
	cellProtected
)

// FastEmulator is an Emulator written for throughput: rows are slices that
// rotate when the screen scrolls, the scrollback is a ring of reused line
// buffers, printable ASCII is copied into the grid in runs, and the parser
// is a small VT500-style state machine that allocates nothing per byte.
// Like every Emulator it is not safe for concurrent use except Read.
type FastEmulator struct {
	// cols and rows are the screen size; prim and alt are the two screens
	// and scr the active one.
	cols, rows int
	prim, alt  *fscreen
	scr        *fscreen
	// cur is the cursor, sb the scrollback and tabs the tab stops.
	cur  fcursor
	sb   fring
	tabs []bool
	// autowrap, insert and newline are the modes DECAWM, IRM and LNM;
	// synced is synchronized output (mode 2026).
	autowrap, insert, newline, synced bool
	// revWrap and revWrapExt are reverse wraparound, modes 45 and 1045,
	// and lrmm is DECLRMM (mode 69), which lets DECSLRM set margins.
	revWrap, revWrapExt, lrmm bool
	// rectExtent is DECSACE 2: DECCARA and DECRARA change a rectangle
	// rather than the text between its corners.
	rectExtent bool
	// cursorVisible is DECTCEM; altSavedCursor records that the alternate
	// screen was entered with mode 1049, which saved the primary cursor.
	cursorVisible, altSavedCursor bool
	// modes are the input modes the program set.
	modes InputModes
	// level is the conformance level DECSCL set, 61 to 65, and
	// cursorStyle the DECSCUSR style, 0 (the default) to 6.
	level, cursorStyle uint8
	// cellW and cellH are the size of a cell in pixels (SetCellSize).
	cellW, cellH int
	// title is the window title and titles the stack XTWINOPS saves it on.
	title  string
	titles []string
	// colors are the default colours: the pane's and the program's, and
	// pal the palette entries the program redefined.
	colors dynColors
	pal    palette
	// links holds the URIs of the OSC 8 hyperlinks cells carry.
	links linkTable
	// clipboard receives the text of OSC 52 set requests; nil ignores
	// them.
	clipboard func(text string)
	// alert hears bells and desktop notifications; nil ignores them.
	alert func(text string)
	// last is the character printed last, for REP, and single the set a
	// single shift selected for the next character.
	last   rune
	single uint8
	parser
	// in carries replies and input to Read.
	in replyQueue
}

var _ Emulator = (*FastEmulator)(nil)

// defaultLevel is the conformance level after a reset: VT220 (62), what
// DA1 reports.
const defaultLevel = 62

// NewFastEmulator returns a FastEmulator of cols × rows cells that keeps up
// to scrollback lines (DefaultScrollback when scrollback ≤ 0). Its Read
// must be drained from the moment it is created.
func NewFastEmulator(cols, rows, scrollback int) *FastEmulator {
	if scrollback <= 0 {
		scrollback = DefaultScrollback
	}
	cols, rows = max(cols, 1), max(rows, 1)
	e := &FastEmulator{
		cols:  cols,
		rows:  rows,
		prim:  &fscreen{},
		alt:   &fscreen{},
		sb:    fring{lines: make([][]fcell, scrollback), flags: make([]uint8, scrollback)},
		cellW: defaultCellWidth,
		cellH: defaultCellHeight,
	}
	e.in.init()
	e.reset()
	return e
}

// reset puts the terminal into its power-on state, as RIS does. The
// scrollback and the title survive it.
func (e *FastEmulator) reset() {
	e.prim.reset(e.cols, e.rows)
	e.alt.reset(e.cols, e.rows)
	e.scr = e.prim
	e.cur = fcursor{}
	e.tabs = defaultTabs(e.tabs[:0], 0, e.cols)
	e.autowrap, e.insert, e.newline = true, false, false
	e.revWrap, e.revWrapExt, e.lrmm, e.rectExtent = false, false, false, false
	e.cursorVisible = true
	e.altSavedCursor = false
	e.modes = InputModes{}
	e.level, e.cursorStyle = defaultLevel, 0
	e.pal = palette{}
	e.last, e.single = 0, 0
	e.state, e.un = stGround, 0
}

// Write parses program output. It blocks only while more than a megabyte
// of replies waits to be read from Read.
func (e *FastEmulator) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		b := p[i]
		if e.state == stGround {
			if e.un == 0 && b >= 0x20 && b < 0x7f {
				j := i + 1
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				e.printASCII(p[i:j])
				i = j
				continue
			}
			if b >= 0x80 || e.un > 0 {
				i += e.decodeUTF8(p[i:])
				continue
			}
		}
		e.step(b)
		i++
	}
	return len(p), nil
}

// printASCII prints a run of printable ASCII bytes. Without a graphics
// character set, single shift or insert mode, each line's share of the run
// (up to the right margin, or the screen's edge from right of it) is
// copied into the row in one loop.
func (e *FastEmulator) printASCII(run []byte) {
	if e.cur.dec[e.cur.gl] || e.single != 0 || e.insert {
		for _, b := range run {
			e.printRune(rune(b))
		}
		return
	}
	for len(run) > 0 {
		if e.cur.wrap {
			e.wrapLine()
		}
		x, l, end := e.cur.x, &e.scr.lines[e.cur.y], e.lineEnd()
		row := l.c
		n := min(len(run), end-x)
		lastb := run[n-1]
		if !e.autowrap && n < len(run) {
			// Without autowrap everything past the margin lands on the
			// last column, where only the final character stays.
			lastb = run[len(run)-1]
			run = run[:n]
		}
		pen := e.cur.pen
		seg := row[x : x+n]
		src := run[:n-1]
		for k, c := range src {
			// Copy the pen whole, then set the character in the cell:
			// setting it in the pen first makes every copy read back a
			// value just partly written, which the processor cannot
			// forward from its store buffer (three times slower).
			seg[k] = pen
			seg[k].r = rune(c)
		}
		seg[n-1] = pen
		seg[n-1].r = rune(lastb)
		l.extend(x + n)
		splitWide(row, x)
		splitWide(row, x+n)
		e.last = rune(lastb)
		run = run[n:]
		if x += n; x >= end {
			x = end - 1
			e.cur.wrap = e.autowrap
		}
		e.cur.x = x
	}
}

// printRune prints one character: it maps the DEC graphics set, appends
// zero-width characters to the previous cell and places wide characters
// on two cells, wrapping first when they do not fit before the right
// margin.
func (e *FastEmulator) printRune(r rune) {
	set := e.cur.gl
	if e.single != 0 {
		set, e.single = e.single, 0
	}
	w := 1
	switch {
	case r < 0x80:
		if e.cur.dec[set] && r >= 0x5f && r < 0x7f {
			r = decGraphics[r-0x5f]
		}
	case r < 0xa0:
		return
	default:
		w = displaywidth.Rune(r)
	}
	if w == 0 {
		e.combine(r)
		return
	}
	if e.cur.wrap {
		e.wrapLine()
	}
	end := e.lineEnd()
	if w == 2 && e.cur.x+2 > end {
		switch {
		case e.autowrap && e.scr.right > e.scr.left:
			e.cur.wrap = true
			e.wrapLine()
			end = e.lineEnd()
		case !e.autowrap && end >= 2:
			e.cur.x = end - 2
		default:
			return
		}
	}
	if e.insert {
		e.insertChars(w)
	}
	x, l := e.cur.x, &e.scr.lines[e.cur.y]
	row := l.c
	l.extend(x + w)
	c := e.cur.pen
	c.r = r
	if w == 2 {
		c.flags |= cellWide
		row[x] = c
		c.r, c.flags = 0, c.flags&^cellWide|cellCont
		row[x+1] = c
	} else {
		row[x] = c
	}
	splitWide(row, x)
	splitWide(row, x+w)
	e.last = r
	if x += w; x >= end {
		x = end - 1
		e.cur.wrap = e.autowrap
	}
	e.cur.x = x
}

// combine appends a zero-width character to the character before the
// cursor. It is dropped when there is none, when the cell already holds
// two marks or when the mark lies outside the Basic Multilingual Plane.
func (e *FastEmulator) combine(r rune) {
	x := e.cur.x
	if !e.cur.wrap {
		x--
	}
	row := e.scr.lines[e.cur.y].c
	if x >= 0 && row[x].flags&cellCont != 0 {
		x--
	}
	if x < 0 || row[x].r == 0 || r > 0xffff {
		return
	}
	for i, m := range row[x].mark {
		if m == 0 {
			row[x].mark[i] = uint16(r)
			return
		}
	}
}

// wrapLine moves the pending-wrap cursor to the left margin of the next
// line, scrolling at the bottom margin, and marks the line it leaves as
// continued.
func (e *FastEmulator) wrapLine() {
	e.scr.lines[e.cur.y].flags |= lineWrapped
	e.index()
	e.cur.x = e.scr.left
}
