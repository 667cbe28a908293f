package pty

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// KeyCode identifies the key of a key press: KeyRune for a printable
// character (whose rune is in Key.Rune) or one of the special keys below.
// Ctrl plus a letter or symbol is KeyRune with ModCtrl. The zero value,
// KeyNone, is no key at all.
type KeyCode int

// The keys EncodeKey knows.
const (
	// KeyNone is no key; EncodeKey returns nil for it.
	KeyNone KeyCode = iota
	// KeyRune is a character key; the character is in Key.Rune.
	KeyRune
	// KeyEnter is Enter (Return).
	KeyEnter
	// KeyTab is Tab; with ModShift it is Backtab.
	KeyTab
	// KeyBacktab is Shift+Tab as some terminals report it.
	KeyBacktab
	// KeyBackspace is Backspace.
	KeyBackspace
	// KeyEscape is Escape.
	KeyEscape
	// KeyUp is the up arrow.
	KeyUp
	// KeyDown is the down arrow.
	KeyDown
	// KeyLeft is the left arrow.
	KeyLeft
	// KeyRight is the right arrow.
	KeyRight
	// KeyHome is Home.
	KeyHome
	// KeyEnd is End.
	KeyEnd
	// KeyPgUp is Page Up.
	KeyPgUp
	// KeyPgDn is Page Down.
	KeyPgDn
	// KeyInsert is Insert.
	KeyInsert
	// KeyDelete is Delete (forward delete).
	KeyDelete
	// KeyF1 is the function key F1; F2 to F12 follow it in order.
	KeyF1
	// KeyF2 is the function key F2.
	KeyF2
	// KeyF3 is the function key F3.
	KeyF3
	// KeyF4 is the function key F4.
	KeyF4
	// KeyF5 is the function key F5.
	KeyF5
	// KeyF6 is the function key F6.
	KeyF6
	// KeyF7 is the function key F7.
	KeyF7
	// KeyF8 is the function key F8.
	KeyF8
	// KeyF9 is the function key F9.
	KeyF9
	// KeyF10 is the function key F10.
	KeyF10
	// KeyF11 is the function key F11.
	KeyF11
	// KeyF12 is the function key F12.
	KeyF12
)

// Mod is a bit set of the modifier keys held during a key press.
type Mod uint8

// The modifier keys. Meta is encoded like Alt.
const (
	// ModShift is Shift.
	ModShift Mod = 1 << iota
	// ModAlt is Alt (Option).
	ModAlt
	// ModCtrl is Control.
	ModCtrl
	// ModMeta is Meta, which is sent as Alt.
	ModMeta
)

// Key is one key press: a key code, the rune for KeyRune, and the
// modifiers held.
type Key struct {
	// Key is the key code; KeyRune for characters.
	Key KeyCode
	// Rune is the character when Key is KeyRune.
	Rune rune
	// Mod holds Shift, Ctrl, Alt and Meta (Meta is treated as Alt).
	Mod Mod
}

// RuneKey returns the Key for typing r with the modifiers mod.
func RuneKey(r rune, mod Mod) Key {
	return Key{Key: KeyRune, Rune: r, Mod: mod}
}

const esc = "\x1b"

// cursorFinals are the final bytes of the cursor-style keys, which xterm
// sends as CSI X, SS3 X (application cursor mode) or CSI 1;mod X.
var cursorFinals = map[KeyCode]byte{
	KeyUp:    'A',
	KeyDown:  'B',
	KeyRight: 'C',
	KeyLeft:  'D',
	KeyHome:  'H',
	KeyEnd:   'F',
}

// functionFinals are F1–F4, which xterm sends as SS3 P…S unmodified and
// CSI 1;mod P…S with modifiers.
var functionFinals = map[KeyCode]byte{
	KeyF1: 'P',
	KeyF2: 'Q',
	KeyF3: 'R',
	KeyF4: 'S',
}

// tildeCodes are the keys xterm sends as CSI n ~ or CSI n;mod ~.
var tildeCodes = map[KeyCode]int{
	KeyInsert: 2,
	KeyDelete: 3,
	KeyPgUp:   5,
	KeyPgDn:   6,
	KeyF5:     15,
	KeyF6:     17,
	KeyF7:     18,
	KeyF8:     19,
	KeyF9:     20,
	KeyF10:    21,
	KeyF11:    23,
	KeyF12:    24,
}

// modParam returns xterm's modifier parameter: 1 plus 1 for Shift, 2 for
// Alt (or Meta) and 4 for Ctrl.
func modParam(m Mod) int {
	p := 1
	if m&ModShift != 0 {
		p++
	}
	if m&(ModAlt|ModMeta) != 0 {
		p += 2
	}
	if m&ModCtrl != 0 {
		p += 4
	}
	return p
}

// ctrlByte returns the control character that Ctrl plus r produces on an
// xterm, and false when r has none.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= '@' && r <= '_':
		return byte(r - '@'), true
	case r == ' ' || r == '2':
		return 0, true
	case r >= '3' && r <= '7':
		return byte(r-'3') + 0x1b, true
	case r == '/':
		return 0x1f, true
	case r == '?' || r == '8':
		return 0x7f, true
	}
	return 0, false
}

// EncodeKey returns the bytes an xterm sends for k while the program has
// the input modes m: Enter is CR, Backspace DEL, Ctrl+letter a control
// character, Alt+key the key prefixed by ESC, cursor keys CSI or SS3
// sequences following DECCKM, and modified special keys xterm's
// CSI 1;mod X or CSI n;mod ~ forms. Once the program turned on the kitty
// keyboard protocol's KittyDisambiguate, the keys that are ambiguous so
// are sent as kitty does instead (see encodeKitty). It returns nil for
// keys that have no encoding.
func EncodeKey(k Key, m InputModes) []byte {
	if m.KittyFlags&KittyDisambiguate != 0 {
		if b, ok := encodeKitty(k); ok {
			return b
		}
	}
	alt := k.Mod&(ModAlt|ModMeta) != 0
	ctrl := k.Mod&ModCtrl != 0
	p := modParam(k.Mod)
	prefixed := func(s string) []byte {
		if alt {
			return []byte(esc + s)
		}
		return []byte(s)
	}

	if final, ok := cursorFinals[k.Key]; ok {
		switch {
		case p > 1:
			return []byte(esc + "[1;" + strconv.Itoa(p) + string(final))
		case m.AppCursor:
			return []byte(esc + "O" + string(final))
		default:
			return []byte(esc + "[" + string(final))
		}
	}
	if final, ok := functionFinals[k.Key]; ok {
		if p > 1 {
			return []byte(esc + "[1;" + strconv.Itoa(p) + string(final))
		}
		return []byte(esc + "O" + string(final))
	}
	if n, ok := tildeCodes[k.Key]; ok {
		if p > 1 {
			return []byte(esc + "[" + strconv.Itoa(n) + ";" + strconv.Itoa(p) + "~")
		}
		return []byte(esc + "[" + strconv.Itoa(n) + "~")
	}

	switch k.Key {
	case KeyRune:
		if ctrl {
			if b, ok := ctrlByte(k.Rune); ok {
				return prefixed(string([]byte{b}))
			}
		}
		if !utf8.ValidRune(k.Rune) {
			return nil
		}
		return prefixed(string(k.Rune))
	case KeyEnter:
		return prefixed("\r")
	case KeyTab:
		if k.Mod&ModShift != 0 {
			return prefixed(esc + "[Z")
		}
		return prefixed("\t")
	case KeyBacktab:
		return prefixed(esc + "[Z")
	case KeyEscape:
		return prefixed(esc)
	case KeyBackspace:
		if ctrl {
			return prefixed("\x08")
		}
		return prefixed("\x7f")
	}
	return nil
}

// EncodeFocus returns what a program in the input modes m hears when its
// pane gains (focused) or loses focus: CSI I or CSI O once it enabled focus
// events (mode 1004), else nothing.
func EncodeFocus(focused bool, m InputModes) string {
	switch {
	case !m.FocusEvents:
		return ""
	case focused:
		return esc + "[I"
	}
	return esc + "[O"
}

// pasteEnd ends a bracketed paste.
const pasteEnd = esc + "[201~"

// sanitizePaste removes every bracketed-paste end marker from text, so a
// paste cannot end the bracket early and smuggle keystrokes to the shell.
func sanitizePaste(text string) string {
	for strings.Contains(text, pasteEnd) {
		text = strings.ReplaceAll(text, pasteEnd, "")
	}
	return text
}
