package pty

import "testing"

func TestEncodeMouse(t *testing.T) {
	normal := InputModes{Mouse: MouseNormal}
	sgr := InputModes{Mouse: MouseNormal, MouseSGR: true}
	cases := []struct {
		name  string
		ev    Mouse
		modes InputModes
		want  string
	}{
		{"off sends nothing", Mouse{Button: MouseLeft, X: 1, Y: 1}, InputModes{}, ""},
		{"legacy press", Mouse{Button: MouseLeft, X: 4, Y: 2}, normal, "\x1b[M %#"},
		{"legacy release names no button", Mouse{Button: MouseRight, Action: MouseRelease, X: 0, Y: 0}, normal, "\x1b[M#!!"},
		{"legacy wheel down with ctrl", Mouse{Button: MouseWheelDown, X: 0, Y: 0, Mod: ModCtrl}, normal, "\x1b[Mq!!"},
		{"legacy stops at column 223", Mouse{Button: MouseLeft, X: 300, Y: 222}, normal, "\x1b[M \xff\xff"},
		{"sgr press", Mouse{Button: MouseLeft, X: 4, Y: 2}, sgr, "\x1b[<0;5;3M"},
		{"sgr release keeps the button", Mouse{Button: MouseRight, Action: MouseRelease, X: 4, Y: 2}, sgr, "\x1b[<2;5;3m"},
		{"sgr wheel up", Mouse{Button: MouseWheelUp, X: 9, Y: 0}, sgr, "\x1b[<64;10;1M"},
		{"sgr far column", Mouse{Button: MouseMiddle, X: 300, Y: 0, Mod: ModShift | ModAlt}, sgr, "\x1b[<13;301;1M"},
		{"normal ignores motion", Mouse{Button: MouseLeft, Action: MouseMotion}, sgr, ""},
		{"button event: drag", Mouse{Button: MouseLeft, Action: MouseMotion, X: 1, Y: 1}, InputModes{Mouse: MouseButtonEvent, MouseSGR: true}, "\x1b[<32;2;2M"},
		{"button event: no bare motion", Mouse{Action: MouseMotion}, InputModes{Mouse: MouseButtonEvent, MouseSGR: true}, ""},
		{"any event: bare motion", Mouse{Action: MouseMotion}, InputModes{Mouse: MouseAnyEvent, MouseSGR: true}, "\x1b[<35;1;1M"},
		{"x10: presses only", Mouse{Button: MouseLeft, Action: MouseRelease}, InputModes{Mouse: MouseX10}, ""},
		{"x10: plain press", Mouse{Button: MouseLeft}, InputModes{Mouse: MouseX10}, "\x1b[M !!"},
		{"x10: no press with a modifier", Mouse{Button: MouseLeft, Mod: ModCtrl}, InputModes{Mouse: MouseX10}, ""},
		{"negative position", Mouse{Button: MouseLeft, X: -1}, sgr, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(EncodeMouse(tc.ev, tc.modes)); got != tc.want {
				t.Errorf("EncodeMouse(%+v, %+v) = %q, want %q", tc.ev, tc.modes, got, tc.want)
			}
		})
	}
}

func TestEmulatorMouseModes(t *testing.T) {
	cases := []struct {
		name  string
		input string
		mouse MouseTracking
		sgr   bool
	}{
		{"normal with sgr", "\x1b[?1000h\x1b[?1006h", MouseNormal, true},
		{"in one sequence", "\x1b[?1002;1006h", MouseButtonEvent, true},
		{"any replaces normal", "\x1b[?1000h\x1b[?1003h", MouseAnyEvent, false},
		{"any reset turns it off", "\x1b[?1002h\x1b[?1000l", MouseOff, false},
		{"x10", "\x1b[?9h", MouseX10, false},
		{"sgr off", "\x1b[?1000;1006h\x1b[?1006l", MouseNormal, false},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 20, 5, 0)
			_, _ = e.Write([]byte(tc.input))
			if m := e.Modes(); m.Mouse != tc.mouse || m.MouseSGR != tc.sgr {
				t.Errorf("modes after %q: %+v, want mouse %d sgr %v", tc.input, m, tc.mouse, tc.sgr)
			}
		})
	}
}

func TestFastEmulatorReportsMouseModes(t *testing.T) {
	e := emuKindNamed("fast").start(t, 10, 4, 0)
	_, _ = e.Write([]byte("\x1b[?1002h\x1b[?1002$p"))
	if got := e.reply(t); got != "\x1b[?1002;1$y" {
		t.Errorf("DECRQM 1002 while set: %q", got)
	}
	_, _ = e.Write([]byte("\x1b[?1006$p"))
	if got := e.reply(t); got != "\x1b[?1006;2$y" {
		t.Errorf("DECRQM 1006 while reset: %q", got)
	}
}
