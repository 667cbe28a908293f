package pty

// The rectangular area operations of the VT400 and later, as xterm does
// them: DECFRA fills, DECERA and DECSERA erase, DECCRA copies, DECCARA
// and DECRARA change or reverse attributes, DECSACE chooses whether the
// last two take a rectangle or the stream of text between two corners.
// Coordinates count from 1, from the margins' top left corner in origin
// mode; the area is clipped to the margins in origin mode, to the screen
// otherwise, and the cursor never moves.

// rect is an area of the screen, in cells counted from 0, its edges
// included.
type rect struct{ top, left, bot, right int }

// rectBounds is the area rectangle coordinates count from and stay in:
// the margins in origin mode, else the screen.
func (e *FastEmulator) rectBounds() rect {
	if e.cur.origin {
		return rect{e.scr.top, e.scr.left, e.scr.bot, e.scr.right}
	}
	return rect{0, 0, e.rows - 1, e.cols - 1}
}

// rectParams reads the rectangle given by parameters i to i+3 (top, left,
// bottom, right; a missing or 0 one is the area's edge) and clips it; ok
// is false when nothing of it is left.
func (e *FastEmulator) rectParams(i int) (r rect, ok bool) {
	r = e.corners(i)
	return r, r.top <= r.bot && r.left <= r.right
}

// corners reads the corners given by parameters i to i+3 as rectParams
// does, clipped but not checked: the text between them may hold more
// than the rectangle.
func (e *FastEmulator) corners(i int) rect {
	b := e.rectBounds()
	r := rect{top: b.top + e.count(i) - 1, left: b.left + e.count(i+1) - 1, bot: b.bot, right: b.right}
	if n := e.param(i+2, 0); n > 0 {
		r.bot = min(b.top+n-1, b.bot)
	}
	if n := e.param(i+3, 0); n > 0 {
		r.right = min(b.left+n-1, b.right)
	}
	return r
}

// rectDispatch performs CSI … $ b, a rectangle operation, and reports
// whether b named one.
func (e *FastEmulator) rectDispatch(b byte) bool {
	switch b {
	case 'x':
		e.fillRect()
	case 'z':
		e.eraseRect(false)
	case '{':
		e.eraseRect(true)
	case 'v':
		e.copyRect()
	case 'r':
		e.changeRectAttrs(false)
	case 't':
		e.changeRectAttrs(true)
	default:
		return false
	}
	return true
}

// fillRect performs DECFRA: the character whose code is the first
// parameter, printable in GL or GR, fills the rectangle in the current
// rendition.
func (e *FastEmulator) fillRect() {
	ch := e.param(0, 0)
	if ch < 0x20 || ch > 0x7e && ch < 0xa0 || ch > 0xff {
		return
	}
	r, ok := e.rectParams(1)
	if !ok {
		return
	}
	c := e.cur.pen
	c.r, c.mark, c.flags = rune(ch), [2]uint16{}, c.flags&cellProtected
	for y := r.top; y <= r.bot; y++ {
		l := &e.scr.lines[y]
		l.fill(r.left, r.right+1, c)
		splitWide(l.c, r.left)
		splitWide(l.c, r.right+1)
	}
}

// eraseRect performs DECERA, which blanks the rectangle, or with
// selective set DECSERA, which blanks only what DECSCA did not protect.
func (e *FastEmulator) eraseRect(selective bool) {
	r, ok := e.rectParams(0)
	if !ok {
		return
	}
	for y := r.top; y <= r.bot; y++ {
		l := &e.scr.lines[y]
		if selective {
			e.eraseUnprotected(l, r.left, r.right+1)
			continue
		}
		l.fill(r.left, r.right+1, e.blank())
		splitWide(l.c, r.left)
		splitWide(l.c, r.right+1)
	}
}

// copyRect performs DECCRA: the source rectangle (parameters 1 to 4; the
// fifth, its page, is always the one page) is copied with its attributes
// to the destination's top left corner (parameters 6 and 7), as it was
// before the copy where the two overlap; what falls outside the area is
// cut off.
func (e *FastEmulator) copyRect() {
	src, ok := e.rectParams(0)
	if !ok {
		return
	}
	b := e.rectBounds()
	dy, dx := b.top+e.count(5)-1, b.left+e.count(6)-1
	h := min(src.bot-src.top, b.bot-dy) + 1
	w := min(src.right-src.left, b.right-dx) + 1
	if h <= 0 || w <= 0 {
		return
	}
	buf := make([]fcell, h*w)
	for i := range h {
		copy(buf[i*w:(i+1)*w], e.scr.lines[src.top+i].c[src.left:])
	}
	for i := range h {
		l := &e.scr.lines[dy+i]
		copy(l.c[dx:dx+w], buf[i*w:(i+1)*w])
		l.extend(dx + w)
		splitWide(l.c, dx)
		splitWide(l.c, dx+w)
	}
}

// rectAttrs are the attributes DECCARA and DECRARA change: SGR 1, 4, 5,
// 7 and 8.
const rectAttrs = AttrBold | AttrUnderline | AttrBlink | AttrReverse | AttrConceal

// rectAttr is the attribute SGR parameter n names among rectAttrs, and
// whether n turns it off (22, 24, 25, 27, 28); 0 names all of them.
func rectAttr(n int) (a Attr, off bool) {
	switch n {
	case 0:
		return rectAttrs, true
	case 1, 22:
		a = AttrBold
	case 4, 24:
		a = AttrUnderline
	case 5, 25:
		a = AttrBlink
	case 7, 27:
		a = AttrReverse
	case 8, 28:
		a = AttrConceal
	}
	return a, n >= 20
}

// changeRectAttrs performs DECCARA, which sets and clears the attributes
// parameters 5 on name (none: SGR 0, all off), or with reverse set
// DECRARA, which flips them (0: all five), in the area of parameters 1 to
// 4: the rectangle after DECSACE 2, else the text from its top left to its
// bottom right corner.
func (e *FastEmulator) changeRectAttrs(reverse bool) {
	r := e.corners(0)
	if r.top > r.bot || (e.rectExtent || r.top == r.bot) && r.left > r.right {
		return
	}
	var set, unset Attr
	for i := 4; i < max(e.np, 5); i++ {
		a, off := rectAttr(e.param(i, 0))
		switch {
		case reverse:
			set |= a
		case off:
			set, unset = set&^a, unset|a
		default:
			set, unset = set|a, unset&^a
		}
	}
	b := e.rectBounds()
	for y := r.top; y <= r.bot; y++ {
		x0, x1 := r.left, r.right
		if !e.rectExtent {
			x0, x1 = b.left, b.right
			if y == r.top {
				x0 = r.left
			}
			if y == r.bot {
				x1 = r.right
			}
		}
		l := &e.scr.lines[y]
		for x := x0; x <= x1; x++ {
			c := &l.c[x]
			if reverse {
				c.attrs ^= set
			} else {
				c.attrs = c.attrs&^unset | set
			}
		}
		l.extend(x1 + 1)
	}
}

// setAttrExtent performs DECSACE: 2 makes DECCARA and DECRARA take a
// rectangle; 0 and 1 the stream of text between its corners.
func (e *FastEmulator) setAttrExtent(n int) {
	switch n {
	case 0, 1:
		e.rectExtent = false
	case 2:
		e.rectExtent = true
	}
}
