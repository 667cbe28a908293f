package pty

import (
	"fmt"
	"testing"
)

// TestFastEmulatorDECRQM sets and resets every mode the FastEmulator
// keeps and checks that DECRQM reports each state.
func TestFastEmulatorDECRQM(t *testing.T) {
	cases := []struct {
		mode int
		dec  bool
		// initial is the state after a reset: 1 set, 2 reset.
		initial int
	}{
		{4, false, 2}, {20, false, 2},
		{1, true, 2}, {6, true, 2}, {7, true, 1}, {9, true, 2}, {25, true, 1},
		{45, true, 2}, {47, true, 2}, {69, true, 2}, {1000, true, 2}, {1002, true, 2},
		{1003, true, 2}, {1004, true, 2}, {1006, true, 2}, {1045, true, 2},
		{1047, true, 2}, {1049, true, 2}, {2004, true, 2}, {2026, true, 2},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.mode), func(t *testing.T) {
			set, query := fmt.Sprintf("\x1b[%dh", tc.mode), fmt.Sprintf("\x1b[%d$p", tc.mode)
			want := func(v int) string { return fmt.Sprintf("\x1b[%d;%d$y", tc.mode, v) }
			if tc.dec {
				set, query = fmt.Sprintf("\x1b[?%dh", tc.mode), fmt.Sprintf("\x1b[?%d$p", tc.mode)
				want = func(v int) string { return fmt.Sprintf("\x1b[?%d;%d$y", tc.mode, v) }
			}
			reset := set[:len(set)-1] + "l"
			e := fastEmu(t, 10, 4, query)
			if got := e.reply(t); got != want(tc.initial) {
				t.Errorf("initial %q, want %q", got, want(tc.initial))
			}
			_, _ = e.Write([]byte(set + query))
			if got := e.reply(t); got != want(1) {
				t.Errorf("after set %q, want %q", got, want(1))
			}
			_, _ = e.Write([]byte(reset + query))
			if got := e.reply(t); got != want(2) {
				t.Errorf("after reset %q, want %q", got, want(2))
			}
		})
	}
}

func TestFastEmulatorModeReplies(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"saved cursor unset", "\x1b[?1048$p", "\x1b[?1048;2$y"},
		{"saved cursor by 1048", "\x1b[?1048h\x1b[?1048l\x1b[?1048$p", "\x1b[?1048;1$y"},
		{"saved cursor by DECSC", "\x1b7\x1b[?1048$p", "\x1b[?1048;1$y"},
		{"saved cursor forgotten by DECSTR", "\x1b7\x1b[!p\x1b[?1048$p", "\x1b[?1048;2$y"},
		{"ANSI permanently reset", "\x1b[13$p", "\x1b[13;4$y"},
		{"ANSI unknown", "\x1b[99$p", "\x1b[99;0$y"},
		{"DEC unknown", "\x1b[?12$p", "\x1b[?12;0$y"},
		{"DECRQM after DECSCL 65", "\x1b[65;1\"p\x1b[?7$p", "\x1b[?7;1$y"},
		{"DECRQM after DECSCL 61", "\x1b[61\"p\x1b[4$p", "\x1b[4;2$y"},
		{"DECSCL soft-resets", "\x1b[4h\x1b[?6h\x1b[63;1\"p\x1b[4$p\x1b[?6$p", "\x1b[4;2$y\x1b[?6;2$y"},
		{"DECSCL out of range ignored", "\x1b[4h\x1b[70\"p\x1b[4$p", "\x1b[4;1$y"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, tc.input)
			var got string
			for len(got) < len(tc.want) {
				got += e.reply(t)
			}
			if got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEncodeFocus(t *testing.T) {
	on := InputModes{FocusEvents: true}
	cases := []struct {
		focused bool
		modes   InputModes
		want    string
	}{
		{true, on, "\x1b[I"},
		{false, on, "\x1b[O"},
		{true, InputModes{}, ""},
		{false, InputModes{}, ""},
	}
	for _, tc := range cases {
		if got := EncodeFocus(tc.focused, tc.modes); got != tc.want {
			t.Errorf("EncodeFocus(%v, %+v) = %q, want %q", tc.focused, tc.modes, got, tc.want)
		}
	}
	forEachEmu(t, "mode 1004", func(t *testing.T, k emuKind) {
		e := k.start(t, 10, 4, 0)
		_, _ = e.Write([]byte("\x1b[?1004h"))
		if !e.Modes().FocusEvents {
			t.Error("mode 1004 not in Modes")
		}
		_, _ = e.Write([]byte("\x1b[?1004l"))
		if e.Modes().FocusEvents {
			t.Error("mode 1004 still in Modes after reset")
		}
	})
}

func TestFastEmulatorCellSize(t *testing.T) {
	e := fastEmu(t, 10, 4, "")
	fe := e.Emulator.(*FastEmulator)
	fe.SetCellSize(8, 16)
	fe.SetCellSize(-1, 30)
	_, _ = e.Write([]byte("\x1b[16t\x1b[14t"))
	want := "\x1b[6;16;8t\x1b[4;64;80t"
	var got string
	for len(got) < len(want) {
		got += e.reply(t)
	}
	if got != want {
		t.Errorf("replies %q, want %q", got, want)
	}
}
