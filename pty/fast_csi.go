package pty

// execute performs a C0 control character.
func (e *FastEmulator) execute(b byte) {
	switch b {
	case '\b':
		e.cursorBack(1)
	case '\t':
		e.tab(1)
	case '\n', '\v', '\f':
		e.index()
		if e.newline {
			e.carriageReturn()
		}
	case '\r':
		e.carriageReturn()
	case 0x07:
		if e.alert != nil {
			e.alert("")
		}
	case 0x0e:
		e.cur.gl = 1
	case 0x0f:
		e.cur.gl = 0
	}
}

// escDispatch performs an escape sequence ESC [inter] b.
func (e *FastEmulator) escDispatch(b byte) {
	switch e.inter {
	case 0:
	case '(', ')', '*', '+':
		e.cur.dec[e.inter-'('] = b == '0'
		return
	case '#':
		if b == '8' {
			e.alignmentTest()
		}
		return
	default:
		return
	}
	switch b {
	case '7':
		e.scr.save(e.cur)
	case '8':
		e.restoreCursor(e.scr.saved)
	case 'D':
		e.index()
	case 'E':
		e.index()
		e.carriageReturn()
	case 'H':
		e.tabs[e.cur.x] = true
	case 'M':
		e.reverseIndex()
	case 'N', 'O':
		e.single = b - 'N' + 2
	case 'n', 'o':
		e.cur.gl = b - 'n' + 2
	case 'c':
		e.reset()
	case '6':
		e.backIndex()
	case '9':
		e.forwardIndex()
	}
}

// csiDispatch performs a CSI sequence whose final byte is b.
func (e *FastEmulator) csiDispatch(b byte) {
	e.np = min(e.np+1, maxParams)
	switch {
	case e.priv == 0 && e.inter == 0:
		e.csi(b)
	case e.inter == 0 && b == 'u':
		e.keyboardFlags()
	case e.priv == '?' && e.inter == 0:
		switch b {
		case 'h', 'l':
			for i := range e.np {
				e.setDECMode(e.param(i, 0), b == 'h')
			}
		case 'J', 'K':
			e.selectiveErase(b == 'J', e.param(0, 0))
		case 'n':
			e.decDeviceStatus(e.param(0, 0))
		}
	case e.priv == '>' && e.inter == 0 && b == 'c' && e.param(0, 0) == 0:
		e.reply("\x1b[>1;10;0c")
	case e.inter == '$' && b == 'p' && (e.priv == 0 || e.priv == '?'):
		e.reportMode(e.param(0, 0), e.priv == '?')
	case e.priv == 0 && e.inter == '$' && e.rectDispatch(b):
	case e.priv == 0 && e.inter == '*' && b == 'x':
		e.setAttrExtent(e.param(0, 0))
	case e.priv == 0 && e.inter == '!' && b == 'p':
		e.softReset()
	case e.priv == 0 && e.inter == '"' && b == 'p':
		e.setConformance(e.param(0, 0))
	case e.priv == 0 && e.inter == '"' && b == 'q':
		e.setProtection(e.param(0, 0))
	case e.priv == 0 && e.inter == ' ' && b == 'q':
		e.setCursorStyle(e.param(0, 0))
	case e.priv == 0 && e.inter == '\'' && (b == '}' || b == '~'):
		// DECIC and DECDC insert and delete columns at the cursor.
		n := e.count(0)
		if b == '~' {
			n = -n
		}
		e.shiftColumns(e.cur.x, n)
	}
}

// csi performs a CSI sequence without private marker or intermediate.
func (e *FastEmulator) csi(b byte) {
	x, y, n := e.cur.x, e.cur.y, e.count(0)
	switch b {
	case 'A':
		e.moveTo(x, max(y-n, e.topLimit()))
	case 'B', 'e':
		e.moveTo(x, min(y+n, e.bottomLimit()))
	case 'C', 'a':
		e.cursorForward(n)
	case 'D':
		e.cursorBack(n)
	case 'E':
		e.moveTo(x, min(y+n, e.bottomLimit()))
		e.carriageReturn()
	case 'F':
		e.moveTo(x, max(y-n, e.topLimit()))
		e.carriageReturn()
	case 'G', '`':
		_, oy := e.originPos()
		e.cursorTo(n-1, oy)
	case 'H', 'f':
		e.cursorTo(e.count(1)-1, n-1)
	case 'd':
		ox, _ := e.originPos()
		e.cursorTo(ox, n-1)
	case 'I':
		e.tab(n)
	case 'Z':
		e.tab(-n)
	case 'J':
		e.eraseDisplay(e.param(0, 0))
	case 'K':
		e.eraseLine(e.param(0, 0))
	case 'X':
		e.eraseCells(y, x, x+n)
	case '@':
		e.insertChars(n)
	case 'P':
		e.insertChars(-n)
	case 'L':
		e.insertLines(n)
	case 'M':
		e.insertLines(-n)
	case 'S':
		e.scrollUp(e.scr.top, e.scr.bot, n, true)
	case 'T':
		if e.np == 1 {
			e.scrollDown(e.scr.top, e.scr.bot, n)
		}
	case 'b':
		for i := 0; i < n && i < e.cols*e.rows && e.last != 0; i++ {
			e.printRune(e.last)
		}
	case 'c':
		if e.param(0, 0) == 0 {
			e.reply("\x1b[?62;1;6;22c")
		}
	case 'g':
		e.clearTabs(e.param(0, 0))
	case 'h', 'l':
		for i := range e.np {
			e.setANSIMode(e.param(i, 0), b == 'h')
		}
	case 'm':
		e.sgr()
	case 'n':
		switch e.param(0, 0) {
		case 5:
			e.reply("\x1b[0n")
		case 6:
			e.reply("\x1b[" + e.cursorReport() + "R")
		}
	case 'r':
		e.setMargins(e.param(0, 1), e.param(1, e.rows))
	case 's':
		if e.lrmm {
			e.setLRMargins(e.param(0, 1), e.param(1, e.cols))
		} else {
			e.scr.save(e.cur)
		}
	case 'u':
		e.restoreCursor(e.scr.saved)
	case 't':
		e.windowOp(e.param(0, 0))
	}
}

// sgr applies Select Graphic Rendition to the pen.
func (e *FastEmulator) sgr() {
	pen := &e.cur.pen
	for i := 0; i < e.np; i++ {
		end := i
		for end < e.np-1 && e.colon&(1<<end) != 0 {
			end++
		}
		switch v := e.param(i, 0); {
		case v == 0:
			pen.fg, pen.bg, pen.attrs = 0, 0, 0
		case v == 4 && end > i:
			pen.attrs &^= AttrUnderline
			if e.param(i+1, 0) != 0 {
				pen.attrs |= AttrUnderline
			}
		case v < 10:
			pen.attrs |= sgrAttrs[v]
		case v == 21:
			pen.attrs |= AttrUnderline
		case v == 22:
			pen.attrs &^= AttrBold | AttrDim
		case v > 22 && v < 30 && v != 26:
			pen.attrs &^= sgrAttrs[v-20]
		case v >= 30 && v < 38:
			pen.fg = IndexedColor(uint8(v - 30))
		case v >= 40 && v < 48:
			pen.bg = IndexedColor(uint8(v - 40))
		case v >= 90 && v < 98:
			pen.fg = IndexedColor(uint8(v - 82))
		case v >= 100 && v < 108:
			pen.bg = IndexedColor(uint8(v - 92))
		case v == 39:
			pen.fg = 0
		case v == 49:
			pen.bg = 0
		case v == 38 || v == 48 || v == 58:
			var c Color
			var ok bool
			c, ok, end = e.extColor(i, end)
			if ok && v == 38 {
				pen.fg = c
			} else if ok && v == 48 {
				pen.bg = c
			}
		}
		i = end
	}
}

// sgrAttrs maps SGR 1–9 to attributes; SGR 22–29 clear the same ones.
var sgrAttrs = [10]Attr{0, AttrBold, AttrDim, AttrItalic, AttrUnderline, AttrBlink, AttrBlink, AttrReverse, AttrConceal, AttrStrikethrough}

// extColor reads the colour of SGR 38, 48 or 58 at parameter i, whose
// colon-separated group ends at end: 5;n or 2;r;g;b with semicolons, and
// 5:n, 2:r:g:b or 2:cs:r:g:b with colons. It returns the colour, whether
// it is well formed, and the index of the last parameter it used.
func (e *FastEmulator) extColor(i, end int) (c Color, ok bool, last int) {
	kind := e.param(i+1, 0)
	switch {
	case end > i:
		last = end
	case kind == 5:
		last = i + 2
	case kind == 2:
		last = i + 4
	default:
		last = i + 1
	}
	if last >= e.np {
		return 0, false, e.np - 1
	}
	switch {
	case kind == 5 && last-i >= 2:
		n := e.param(i+2, 0)
		return IndexedColor(uint8(n)), n < 256, last
	case kind == 2 && last-i >= 4:
		r, g, b := e.param(last-2, 0), e.param(last-1, 0), e.param(last, 0)
		return RGBColor(uint8(r), uint8(g), uint8(b)), r < 256 && g < 256 && b < 256, last
	}
	return 0, false, last
}

// decGraphics maps '_' through '~' in the DEC special graphics set to
// Unicode, as xterm does.
var decGraphics = [32]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}
