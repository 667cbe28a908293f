package pty

import (
	"io"

	"github.com/charmbracelet/x/vt"
)

// SendKey encodes k for the program. Keys x/vt encodes correctly go
// through its own encoder; modified special keys, Home and End in
// application cursor mode and the other keys x/vt leaves out are encoded
// by EncodeKey and sent through the emulator's input pipe, so all input
// reaches Read in order.
func (e *VTEmulator) SendKey(k Key) {
	if ev, ok := vtKeyEvent(k, e.modes); ok {
		e.emu.SendKey(ev)
		return
	}
	if b := EncodeKey(k, e.modes); len(b) > 0 {
		e.emu.SendText(string(b))
	}
}

// SendText queues raw bytes for the program.
func (e *VTEmulator) SendText(text string) {
	if text != "" {
		e.emu.SendText(text)
	}
}

// Paste queues text for the program, bracketed when the program enabled
// bracketed paste; end markers inside text are removed first.
func (e *VTEmulator) Paste(text string) {
	e.emu.Paste(sanitizePaste(text))
}

// Read returns replies and encoded input for the program.
func (e *VTEmulator) Read(p []byte) (int, error) {
	return e.emu.Read(p)
}

// Close ends Read with io.EOF. It closes only the emulator's input pipe:
// x/vt's own Close sets a flag that Read checks without a lock, which would
// race with the goroutine draining Read.
func (e *VTEmulator) Close() error {
	if c, ok := e.emu.InputPipe().(interface{ CloseWithError(error) error }); ok {
		return c.CloseWithError(io.EOF)
	}
	return e.emu.Close()
}

// vtSimpleKeys are the special keys x/vt encodes correctly when pressed
// without modifiers.
var vtSimpleKeys = map[KeyCode]rune{
	KeyUp:      vt.KeyUp,
	KeyDown:    vt.KeyDown,
	KeyRight:   vt.KeyRight,
	KeyLeft:    vt.KeyLeft,
	KeyInsert:  vt.KeyInsert,
	KeyDelete:  vt.KeyDelete,
	KeyPgUp:    vt.KeyPgUp,
	KeyPgDn:    vt.KeyPgDown,
	KeyF1:      vt.KeyF1,
	KeyF2:      vt.KeyF2,
	KeyF3:      vt.KeyF3,
	KeyF4:      vt.KeyF4,
	KeyF5:      vt.KeyF5,
	KeyF6:      vt.KeyF6,
	KeyF7:      vt.KeyF7,
	KeyF8:      vt.KeyF8,
	KeyF9:      vt.KeyF9,
	KeyF10:     vt.KeyF10,
	KeyF11:     vt.KeyF11,
	KeyF12:     vt.KeyF12,
	KeyBacktab: 0,
}

// vtAltKeys are the keys x/vt encodes correctly alone or with Alt, which
// it sends as ESC followed by the key.
var vtAltKeys = map[KeyCode]rune{
	KeyEnter:     vt.KeyEnter,
	KeyTab:       vt.KeyTab,
	KeyEscape:    vt.KeyEscape,
	KeyBackspace: vt.KeyBackspace,
}

// vtKeyEvent converts k into the x/vt key event that encodes it, and
// reports false when x/vt has no correct encoding for it: modified cursor,
// editing and function keys (x/vt drops the modifiers or prefixes ESC),
// Home and End in application cursor mode (x/vt ignores DECCKM for them),
// Ctrl with non-letters and Shift-modified keys.
func vtKeyEvent(k Key, m InputModes) (vt.KeyPressEvent, bool) {
	var mod vt.KeyMod
	if k.Mod&(ModAlt|ModMeta) != 0 {
		mod |= vt.ModAlt
	}
	ctrl := k.Mod&ModCtrl != 0
	if k.Mod&ModShift != 0 {
		return vt.KeyPressEvent{}, false
	}
	if code, ok := vtSimpleKeys[k.Key]; ok && k.Mod == 0 {
		if k.Key == KeyBacktab {
			return vt.KeyPressEvent{Code: vt.KeyTab, Mod: vt.ModShift}, true
		}
		return vt.KeyPressEvent{Code: code}, true
	}
	if (k.Key == KeyHome || k.Key == KeyEnd) && k.Mod == 0 && !m.AppCursor {
		code := vt.KeyHome
		if k.Key == KeyEnd {
			code = vt.KeyEnd
		}
		return vt.KeyPressEvent{Code: code}, true
	}
	if code, ok := vtAltKeys[k.Key]; ok && !ctrl {
		return vt.KeyPressEvent{Code: code, Mod: mod}, true
	}
	switch {
	case k.Key != KeyRune:
		return vt.KeyPressEvent{}, false
	case ctrl && (k.Rune >= 'a' && k.Rune <= 'z' || k.Rune == ' '):
		return vt.KeyPressEvent{Code: k.Rune, Mod: mod | vt.ModCtrl}, true
	case !ctrl && k.Rune >= ' ' && k.Rune != 0x7f:
		return vt.KeyPressEvent{Code: k.Rune, Mod: mod}, true
	}
	return vt.KeyPressEvent{}, false
}
