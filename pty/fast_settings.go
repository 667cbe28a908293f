package pty

import "strconv"

// dcsDispatch performs the collected DCS string. Only DECRQSS (DCS $ q)
// is answered; every other DCS (sixel images, XTGETTCAP, tmux
// passthrough) is passed over, and so is one that outgrew maxDCS.
func (e *FastEmulator) dcsDispatch() {
	if !e.dcsLong && len(e.dcs) >= 2 && e.dcs[0] == '$' && e.dcs[1] == 'q' {
		e.requestSetting(string(e.dcs[2:]))
	}
}

// requestSetting answers DECRQSS for the control function named pt (its
// intermediate and final bytes) with DCS 1 $ r, the parameters that would
// set the current state and pt, ST, as xterm does: SGR, DECSTBM, DECSLRM,
// DECSCUSR, DECSCL and DECSCA. Any other request gets DCS 0 $ r ST.
func (e *FastEmulator) requestSetting(pt string) {
	var v string
	switch pt {
	case "m":
		v = e.sgrReport()
	case "r":
		v = strconv.Itoa(e.scr.top+1) + ";" + strconv.Itoa(e.scr.bot+1)
	case "s":
		v = strconv.Itoa(e.scr.left+1) + ";" + strconv.Itoa(e.scr.right+1)
	case " q":
		v = strconv.Itoa(int(e.cursorStyle))
	case "\"p":
		v = strconv.Itoa(int(e.level)) + ";1"
	case "\"q":
		v = strconv.Itoa(btoi(e.cur.pen.flags&cellProtected != 0))
	default:
		e.reply("\x1bP0$r\x1b\\")
		return
	}
	e.reply("\x1bP1$r" + v + pt + "\x1b\\")
}

// sgrReport returns the SGR parameters that set the pen, in xterm's
// order: "0", the attributes, then the colours, 256-colour and RGB ones
// with colons.
func (e *FastEmulator) sgrReport() string {
	b := []byte{'0'}
	pen := e.cur.pen
	for _, a := range sgrReportAttrs {
		if pen.attrs&a.attr != 0 {
			b = append(append(b, ';'), a.code)
		}
	}
	b = appendSGRColor(b, pen.fg, 30)
	return string(appendSGRColor(b, pen.bg, 40))
}

// sgrReportAttrs are the attributes DECRQSS reports, in xterm's order.
var sgrReportAttrs = [...]struct {
	attr Attr
	code byte
}{
	{AttrBold, '1'}, {AttrUnderline, '4'}, {AttrBlink, '5'}, {AttrReverse, '7'},
	{AttrConceal, '8'}, {AttrDim, '2'}, {AttrItalic, '3'}, {AttrStrikethrough, '9'},
}

// appendSGRColor appends the SGR parameters of colour c to b, base being
// 30 for the foreground and 40 for the background: base+n for the first
// eight colours, base+60+n for their bright forms, then base+8:5:n and
// base+8:2::r:g:b. The default colour appends nothing.
func appendSGRColor(b []byte, c Color, base int) []byte {
	if n, ok := c.Index(); ok {
		b = append(b, ';')
		switch {
		case n < 8:
			return strconv.AppendInt(b, int64(base+int(n)), 10)
		case n < 16:
			return strconv.AppendInt(b, int64(base+60+int(n)-8), 10)
		}
		b = strconv.AppendInt(b, int64(base+8), 10)
		return strconv.AppendInt(append(b, ":5:"...), int64(n), 10)
	}
	if r, g, bl, ok := c.RGB(); ok {
		b = strconv.AppendInt(append(b, ';'), int64(base+8), 10)
		b = strconv.AppendInt(append(b, ":2::"...), int64(r), 10)
		b = strconv.AppendInt(append(b, ':'), int64(g), 10)
		return strconv.AppendInt(append(b, ':'), int64(bl), 10)
	}
	return b
}

// setCursorStyle performs DECSCUSR: 0 is the default cursor, 1 to 6 a
// blinking or steady block, underline or bar. The style is only
// reported (DECRQSS); an unknown one is ignored.
func (e *FastEmulator) setCursorStyle(n int) {
	if n <= 6 {
		e.cursorStyle = uint8(n)
	}
}

// setProtection performs DECSCA: with 1 the characters printed next are
// protected from selective erase (DECSED, DECSEL); 0 and 2 end that.
func (e *FastEmulator) setProtection(n int) {
	switch n {
	case 0, 2:
		e.cur.pen.flags &^= cellProtected
	case 1:
		e.cur.pen.flags |= cellProtected
	}
}

// selectiveErase performs DECSEL (display false) or DECSED with mode 0
// (from the cursor on), 1 (up to the cursor) or 2 (all): like EL and ED,
// but it leaves the cells DECSCA protected, keeps line flags and sends
// nothing to the scrollback.
func (e *FastEmulator) selectiveErase(display bool, mode int) {
	top, bot := e.cur.y, e.cur.y
	if display {
		top, bot = 0, e.rows-1
	}
	for y := top; y <= bot && mode <= 2; y++ {
		x0, x1 := 0, e.cols
		switch {
		case mode == 0 && y == e.cur.y:
			x0 = e.cur.x
		case mode == 1 && y == e.cur.y:
			x1 = e.cur.x + 1
		case mode == 0 && y < e.cur.y, mode == 1 && y > e.cur.y:
			continue
		}
		e.eraseUnprotected(&e.scr.lines[y], x0, x1)
	}
	e.cur.wrap = false
}

// eraseUnprotected blanks the cells of columns x0 up to x1 of row l that
// DECSCA did not protect. Both halves of a wide character carry its
// protection, so only an unprotected one can be cut in two.
func (e *FastEmulator) eraseUnprotected(l *fline, x0, x1 int) {
	blank := e.blank()
	if blank == (fcell{}) {
		x1 = min(x1, int(l.used))
	}
	for x := x0; x < x1; x++ {
		if l.c[x].flags&cellProtected == 0 {
			l.c[x] = blank
		}
	}
	if blank != (fcell{}) {
		l.extend(x1)
	}
	splitWide(l.c, x0)
	splitWide(l.c, x1)
}
