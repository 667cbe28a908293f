package pty

import "strconv"

// MouseTracking is the mouse reporting a program asked for with DECSET 9,
// 1000, 1002 or 1003. Setting one replaces the other; resetting any of
// them turns reporting off, as in xterm.
type MouseTracking int

// The mouse tracking modes.
const (
	// MouseOff reports nothing: the terminal keeps the mouse.
	MouseOff MouseTracking = iota
	// MouseX10 (mode 9) reports plain button presses only: no releases, no
	// wheel, nothing with a modifier held.
	MouseX10
	// MouseNormal (mode 1000) reports presses, releases and the wheel.
	MouseNormal
	// MouseButtonEvent (mode 1002) also reports motion while a button is
	// held.
	MouseButtonEvent
	// MouseAnyEvent (mode 1003) also reports motion with no button held.
	MouseAnyEvent
)

// mouseTracking maps a DEC private mode number to its tracking mode.
func mouseTracking(mode int) (MouseTracking, bool) {
	switch mode {
	case 9:
		return MouseX10, true
	case 1000:
		return MouseNormal, true
	case 1002:
		return MouseButtonEvent, true
	case 1003:
		return MouseAnyEvent, true
	}
	return MouseOff, false
}

// setMouseMode applies DECSET or DECRST of mode n to m and reports whether
// n is a mouse mode.
func (m *InputModes) setMouseMode(n int, on bool) bool {
	if n == 1006 {
		m.MouseSGR = on
		return true
	}
	t, ok := mouseTracking(n)
	if !ok {
		return false
	}
	if on {
		m.Mouse = t
	} else {
		m.Mouse = MouseOff
	}
	return true
}

// mouseModeState returns the state of mouse mode n for DECRQM.
func (m InputModes) mouseModeState(n int) (on, known bool) {
	if n == 1006 {
		return m.MouseSGR, true
	}
	t, ok := mouseTracking(n)
	return ok && m.Mouse == t, ok
}

// MouseButton is the button of a mouse event.
type MouseButton int

// The mouse buttons.
const (
	// MouseNoButton is motion with no button held.
	MouseNoButton MouseButton = iota
	// MouseLeft is the left (first) button.
	MouseLeft
	// MouseMiddle is the middle button.
	MouseMiddle
	// MouseRight is the right button.
	MouseRight
	// MouseWheelUp is one step of the wheel away from the user.
	MouseWheelUp
	// MouseWheelDown is one step of the wheel toward the user.
	MouseWheelDown
)

// MouseAction is what happened to the button.
type MouseAction int

// The mouse actions.
const (
	// MousePress is a button going down, or one wheel step.
	MousePress MouseAction = iota
	// MouseRelease is a button coming up.
	MouseRelease
	// MouseMotion is the pointer moving, with Button held (or none).
	MouseMotion
)

// Mouse is a mouse event at column X, row Y of the program's screen,
// counted from 0.
type Mouse struct {
	Button MouseButton
	Action MouseAction
	X, Y   int
	Mod    Mod
}

// EncodeMouse returns the bytes that report ev to a program in the given
// modes, or nil when the program did not ask for such events. The legacy
// encoding cannot go past column or row 223, where positions stop, as in
// xterm.
func EncodeMouse(ev Mouse, modes InputModes) []byte {
	if !mouseWanted(ev, modes) || ev.X < 0 || ev.Y < 0 {
		return nil
	}
	var cb int
	switch ev.Button {
	case MouseLeft:
		cb = 0
	case MouseMiddle:
		cb = 1
	case MouseRight:
		cb = 2
	case MouseNoButton:
		cb = 3
	case MouseWheelUp:
		cb = 64
	case MouseWheelDown:
		cb = 65
	default:
		return nil
	}
	if ev.Action == MouseMotion {
		cb += 32
	}
	if ev.Mod&ModShift != 0 {
		cb += 4
	}
	if ev.Mod&(ModAlt|ModMeta) != 0 {
		cb += 8
	}
	if ev.Mod&ModCtrl != 0 {
		cb += 16
	}
	if modes.MouseSGR {
		final := byte('M')
		if ev.Action == MouseRelease {
			final = 'm'
		}
		b := []byte("\x1b[<")
		b = strconv.AppendInt(b, int64(cb), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(ev.X+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(ev.Y+1), 10)
		return append(b, final)
	}
	if ev.Action == MouseRelease {
		cb = cb&^3 | 3 // the legacy encoding does not say which button rose
	}
	const limit = 255 - 32 - 1 // the last position a byte can carry, from 0
	x, y := min(ev.X, limit), min(ev.Y, limit)
	return []byte{0x1b, '[', 'M', byte(32 + cb), byte(32 + x + 1), byte(32 + y + 1)}
}

// mouseWanted reports whether a program in the given modes asked for ev.
// X10 mode reports plain presses: xterm keeps a press with a modifier for
// itself.
func mouseWanted(ev Mouse, modes InputModes) bool {
	switch modes.Mouse {
	case MouseX10:
		return ev.Action == MousePress && ev.Mod == 0
	case MouseNormal:
		return ev.Action != MouseMotion
	case MouseButtonEvent:
		return ev.Action != MouseMotion || ev.Button != MouseNoButton
	case MouseAnyEvent:
		return true
	}
	return false
}
