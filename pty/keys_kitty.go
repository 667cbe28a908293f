package pty

import (
	"strconv"
	"unicode/utf8"
)

// KittyDisambiguate is the first progressive enhancement of the kitty
// keyboard protocol: Esc and the Alt and Ctrl combinations, whose legacy
// encodings are ambiguous, are sent as CSI u sequences, so ctrl+i is no
// longer Tab nor Esc the start of an escape sequence. It is the only flag
// the emulator grants (see InputModes.KittyFlags).
const KittyDisambiguate uint8 = 1

// kittyFlags are the enhancements EncodeKey implements. A program asking
// for others gets these only, and its query says so.
const kittyFlags = KittyDisambiguate

// maxKittyStack is how many flag sets a screen's stack holds, as in kitty;
// a push onto a full stack drops the oldest.
const maxKittyStack = 8

// kittyStack is one screen's stack of kitty keyboard flags: CSI > u
// pushes, CSI < u pops and CSI = u changes the top, which is in force.
type kittyStack struct {
	flags [maxKittyStack]uint8
	n     int
}

// current returns the flags in force: the top of the stack, none when it
// is empty.
func (k *kittyStack) current() uint8 {
	if k.n == 0 {
		return 0
	}
	return k.flags[k.n-1]
}

// push makes f the flags in force, dropping the oldest entry when the
// stack is full.
func (k *kittyStack) push(f uint8) {
	if k.n == maxKittyStack {
		copy(k.flags[:], k.flags[1:])
		k.n--
	}
	k.flags[k.n] = f
	k.n++
}

// pop removes n entries; emptying the stack resets the flags.
func (k *kittyStack) pop(n int) {
	k.n = max(k.n-n, 0)
}

// set changes the flags in force: mode 1 makes them f, 2 adds f's bits
// and 3 removes them. On an empty stack it changes a first entry, as
// kitty does.
func (k *kittyStack) set(f uint8, mode int) {
	if k.n == 0 {
		k.flags[0], k.n = 0, 1
	}
	top := &k.flags[k.n-1]
	switch mode {
	case 1:
		*top = f
	case 2:
		*top |= f
	case 3:
		*top &^= f
	}
}

// keyboardFlags performs the kitty keyboard protocol's sequences on the
// active screen's stack: CSI > f u, CSI < n u, CSI = f ; mode u and the
// query CSI ? u, answered with CSI ? flags u. Flags the encoder does not
// implement are dropped.
func (e *FastEmulator) keyboardFlags() {
	k := &e.scr.keys
	switch e.priv {
	case '>':
		k.push(uint8(e.param(0, 0)) & kittyFlags)
	case '<':
		k.pop(e.count(0))
	case '=':
		k.set(uint8(e.param(0, 0))&kittyFlags, e.param(1, 1))
	case '?':
		e.reply("\x1b[?" + strconv.Itoa(int(k.current())) + "u")
	}
}

// encodeKitty returns the bytes the kitty keyboard protocol sends for k
// with disambiguation on, and false for a key it sends as legacy xterm
// does: text, even shifted, and Enter, Tab and Backspace without
// modifiers, so a shell stays usable after a program that set the flag
// crashed. Esc is CSI 27 u; Alt and Ctrl combinations are CSI code ; mods
// u, the code being the unshifted key (an upper-case letter is its lower
// case with Shift); the cursor keys and F1–F4 use CSI even in application
// cursor mode, and F3 is CSI 13 ~, as CSI R is a cursor position report.
func encodeKitty(k Key) ([]byte, bool) {
	p := modParam(k.Mod)
	switch k.Key {
	case KeyRune:
		return kittyRune(k.Rune, k.Mod)
	case KeyEscape:
		return csiKey(27, p, 'u'), true
	case KeyEnter, KeyTab, KeyBackspace:
		if p == 1 {
			return nil, false
		}
		return csiKey(kittyCodes[k.Key], p, 'u'), true
	case KeyBacktab:
		return csiKey(9, modParam(k.Mod|ModShift), 'u'), true
	case KeyF3:
		return csiKey(13, p, '~'), true
	}
	final, ok := cursorFinals[k.Key]
	if !ok {
		final, ok = functionFinals[k.Key]
	}
	if !ok {
		return nil, false
	}
	if p == 1 {
		return []byte{0x1b, '[', final}, true
	}
	return csiKey(1, p, final), true
}

// kittyCodes are the key codes of Enter, Tab and Backspace, their C0
// bytes.
var kittyCodes = map[KeyCode]int{KeyEnter: 13, KeyTab: 9, KeyBackspace: 127}

// kittyRune encodes a character key held with mod: CSI code ; mods u with
// Alt or Ctrl, else the character itself as legacy text (false).
func kittyRune(r rune, mod Mod) ([]byte, bool) {
	if mod&(ModAlt|ModMeta|ModCtrl) == 0 || r < 0x20 || r == 0x7f || !utf8.ValidRune(r) {
		return nil, false
	}
	if r >= 'A' && r <= 'Z' {
		r, mod = r-'A'+'a', mod|ModShift
	}
	return csiKey(int(r), modParam(mod), 'u'), true
}

// csiKey returns CSI code ; p final, leaving out the modifier parameter p
// when it is 1 (no modifiers).
func csiKey(code, p int, final byte) []byte {
	b := strconv.AppendInt([]byte("\x1b["), int64(code), 10)
	if p > 1 {
		b = strconv.AppendInt(append(b, ';'), int64(p), 10)
	}
	return append(b, final)
}
