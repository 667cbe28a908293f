package pty

import (
	"slices"
	"testing"
)

// TestProgramsAskForTheUser: both emulators report a bell and the desktop
// notifications agent CLIs send (OSC 9, OSC 777;notify) to the alert
// handler, made safe to show, and nothing else: not OSC 9;4 progress, a
// BEL that ends an OSC, or a title.
func TestProgramsAskForTheUser(t *testing.T) {
	cases := []struct {
		name, input string
		want        []string
	}{
		{"a bell", "done\x07", []string{""}},
		{"OSC 9", "\x1b]9;Claude needs your permission\x07", []string{"Claude needs your permission"}},
		{"OSC 9 ended by ST", "\x1b]9;waiting\x1b\\", []string{"waiting"}},
		{"OSC 777", "\x1b]777;notify;Codex;approve the command?\x07", []string{"Codex: approve the command?"}},
		{"OSC 777 without a body", "\x1b]777;notify;aider\x07", []string{"aider"}},
		{"escapes in the text", "\x1b]9;ok\u009b2J\u202eevil\x07", []string{"ok2Jevil"}},
		{"OSC 9;4 is progress", "\x1b]9;4;1;50\x07", nil},
		{"another OSC 777", "\x1b]777;preexec\x07", nil},
		{"a title", "\x1b]0;my title\x07\x1b]2;other\x07", nil},
	}
	forEachEmu(t, "", func(t *testing.T, k emuKind) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := k.start(t, 40, 4, 0)
				var got []string
				e.SetAlertHandler(func(text string) { got = append(got, text) })
				_, _ = e.Write([]byte(tc.input))
				if !slices.Equal(got, tc.want) {
					t.Errorf("alerts %q, want %q", got, tc.want)
				}
			})
		}
	})
}
