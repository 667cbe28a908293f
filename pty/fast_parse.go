package pty

import "unicode/utf8"

// The parser states, after the VT500 state machine of vt100.net. The
// string states come last, so step tells them apart with one comparison.
const (
	stGround = iota
	stEscape
	stEscInter
	stCSI
	stCSIInter
	stCSIIgnore
	stOSC
	stDCS
	stString
)

// maxParams is the most CSI parameters kept; later ones are dropped.
const maxParams = 32

// maxDCS is the longest DCS string kept. The only DCS answered, DECRQSS,
// is a few bytes long; longer ones (sixel images) are passed over.
const maxDCS = 32

// maxOSC is the longest OSC payload kept but for OSC 52, which may be
// maxOSC52 long; the rest is dropped, and an OSC 52 that lost bytes is
// ignored.
const maxOSC = 4096

// parser is the escape-sequence state of a FastEmulator.
type parser struct {
	state uint8
	// params are the CSI parameters, -1 where one was left empty, and np
	// counts them. Bit i of colon is set when parameter i+1 is a
	// sub-parameter of parameter i (separated by a colon).
	params [maxParams]int32
	np     int
	colon  uint32
	// priv is the private marker (? > < =) and inter the intermediate
	// byte of the sequence; inter is 0xff when there were several.
	priv, inter byte
	osc         []byte
	// oscLong is set when the OSC string outgrew its limit.
	oscLong bool
	// dcs is the DCS string being collected after ESC P, and dcsLong is
	// set once it outgrew maxDCS.
	dcs     []byte
	dcsLong bool
	// ubuf holds the un bytes of a UTF-8 sequence split across writes.
	ubuf [4]byte
	un   int
}

// step advances the parser by one byte that is not printable text.
func (e *FastEmulator) step(b byte) {
	if e.state >= stOSC {
		e.stepString(b)
		return
	}
	if b < 0x20 {
		if b == 0x1b || b == 0x18 || b == 0x1a {
			e.enter(b)
		} else {
			e.execute(b)
		}
		return
	}
	if b == 0x7f {
		return
	}
	switch e.state {
	case stEscape:
		e.stepEscape(b)
	case stEscInter:
		if b < 0x30 {
			e.inter = 0xff
			return
		}
		e.state = stGround
		e.escDispatch(b)
	case stCSI:
		e.stepCSI(b)
	case stCSIInter:
		switch {
		case b < 0x30:
			e.inter = 0xff
		case b < 0x40:
			e.state = stCSIIgnore
		case b < 0x7f:
			e.state = stGround
			e.csiDispatch(b)
		default:
			e.state = stCSIIgnore
		}
	case stCSIIgnore:
		if b >= 0x40 && b < 0x7f {
			e.state = stGround
		}
	}
}

// stepString collects a byte of an OSC or DCS string, or passes over one
// of an SOS, PM or APC string, performing the string when it ends.
func (e *FastEmulator) stepString(b byte) {
	switch e.state {
	case stOSC:
		switch {
		case b == 0x07 || b == 0x1b:
			e.oscDispatch(b == 0x1b)
			e.enter(b)
		case b == 0x18 || b == 0x1a:
			e.state = stGround
		case b >= 0x20 && len(e.osc) < e.oscLimit():
			e.osc = append(e.osc, b)
		case b >= 0x20:
			e.oscLong = true
		}
	case stDCS:
		switch {
		case b == 0x1b:
			e.dcsDispatch()
			e.enter(b)
		case b == 0x18 || b == 0x1a:
			e.state = stGround
		case len(e.dcs) < maxDCS:
			e.dcs = append(e.dcs, b)
		default:
			e.dcsLong = true
		}
	default:
		if b == 0x1b || b == 0x18 || b == 0x1a {
			e.enter(b)
		}
	}
}

// oscLimit is the most bytes the OSC string being collected may hold.
func (e *FastEmulator) oscLimit() int {
	if len(e.osc) >= 3 && string(e.osc[:3]) == "52;" {
		return maxOSC52
	}
	return maxOSC
}

// enter handles the bytes that end any sequence: ESC starts a new escape
// sequence, BEL only ends a string, and CAN and SUB cancel.
func (e *FastEmulator) enter(b byte) {
	e.state = stGround
	if b == 0x1b {
		e.state, e.inter = stEscape, 0
	}
}

// stepEscape handles the byte after ESC.
func (e *FastEmulator) stepEscape(b byte) {
	switch {
	case b < 0x30:
		e.state, e.inter = stEscInter, b
	case b == '[':
		e.state, e.np, e.colon, e.priv, e.inter = stCSI, 0, 0, 0, 0
		e.params[0] = -1
	case b == ']':
		e.state, e.osc, e.oscLong = stOSC, e.osc[:0], false
	case b == 'P':
		e.state, e.dcs, e.dcsLong = stDCS, e.dcs[:0], false
	case b == 'X' || b == '^' || b == '_':
		e.state = stString
	default:
		e.state = stGround
		e.escDispatch(b)
	}
}

// stepCSI collects a CSI sequence's parameters, private marker and
// intermediate byte, and dispatches it on its final byte.
func (e *FastEmulator) stepCSI(b byte) {
	switch {
	case b >= '0' && b <= '9':
		if e.np < maxParams {
			v := max(e.params[e.np], 0)*10 + int32(b-'0')
			e.params[e.np] = min(v, 0xffff)
		}
	case b == ';' || b == ':':
		if e.np < maxParams {
			if b == ':' {
				e.colon |= 1 << e.np
			}
			e.np++
			if e.np < maxParams {
				e.params[e.np] = -1
			}
		}
	case b >= '<' && b <= '?':
		if e.np > 0 || e.params[0] >= 0 || e.priv != 0 {
			e.state = stCSIIgnore
			return
		}
		e.priv = b
	case b < 0x30:
		e.state, e.inter = stCSIInter, b
	case b >= 0x40 && b < 0x7f:
		e.state = stGround
		e.csiDispatch(b)
	default:
		e.state = stCSIIgnore
	}
}

// param returns CSI parameter i, or def when it is missing or empty.
func (e *FastEmulator) param(i, def int) int {
	if i >= e.np || e.params[i] < 0 {
		return def
	}
	return int(e.params[i])
}

// count returns CSI parameter i as a repeat count: at least 1.
func (e *FastEmulator) count(i int) int {
	return max(e.param(i, 1), 1)
}

// decodeUTF8 decodes the character starting p, or continues one split
// across writes, prints it and returns the bytes consumed. Invalid input
// prints U+FFFD; a byte that cannot continue a pending sequence ends it
// with U+FFFD and is left for the caller to process again.
func (e *FastEmulator) decodeUTF8(p []byte) int {
	if e.un == 0 {
		if !utf8.FullRune(p) {
			e.un = copy(e.ubuf[:], p)
			return len(p)
		}
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			// An invalid sequence shows one U+FFFD for its lead byte and
			// the continuation bytes that follow it.
			need := 1 + btoi(p[0] >= 0xc0) + btoi(p[0] >= 0xe0) + btoi(p[0] >= 0xf0)
			for size < min(need, len(p)) && p[size]&0xc0 == 0x80 {
				size++
			}
		}
		e.printRune(r)
		return size
	}
	if p[0]&0xc0 != 0x80 {
		e.un = 0
		e.printRune(utf8.RuneError)
		return 0
	}
	e.ubuf[e.un] = p[0]
	e.un++
	if utf8.FullRune(e.ubuf[:e.un]) {
		r, size := utf8.DecodeRune(e.ubuf[:e.un])
		if size != e.un {
			r = utf8.RuneError
		}
		e.un = 0
		e.printRune(r)
	}
	return 1
}
