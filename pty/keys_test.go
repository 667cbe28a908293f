package pty

import "testing"

func TestEncodeKey(t *testing.T) {
	app := InputModes{AppCursor: true}
	normal := InputModes{}
	special := func(k KeyCode, m Mod) Key { return Key{Key: k, Mod: m} }
	cases := []struct {
		name  string
		modes InputModes
		key   Key
		want  string
	}{
		{"enter", normal, special(KeyEnter, 0), "\r"},
		{"backspace", normal, special(KeyBackspace, 0), "\x7f"},
		{"backspace del form", normal, Key{Key: KeyBackspace}, "\x7f"},
		{"ctrl backspace", normal, special(KeyBackspace, ModCtrl), "\x08"},
		{"alt backspace", normal, special(KeyBackspace, ModAlt), "\x1b\x7f"},
		{"tab", normal, special(KeyTab, 0), "\t"},
		{"backtab", normal, special(KeyBacktab, 0), "\x1b[Z"},
		{"shift tab", normal, special(KeyTab, ModShift), "\x1b[Z"},
		{"escape", normal, special(KeyEscape, 0), "\x1b"},
		{"alt enter", normal, special(KeyEnter, ModAlt), "\x1b\r"},
		{"rune", normal, RuneKey('a', 0), "a"},
		{"unicode rune", normal, RuneKey('é', 0), "é"},
		{"space", normal, RuneKey(' ', 0), " "},
		{"ctrl c key", normal, Key{Key: KeyRune, Rune: 'c', Mod: ModCtrl}, "\x03"},
		{"ctrl c rune", normal, RuneKey('c', ModCtrl), "\x03"},
		{"ctrl shift c", normal, RuneKey('C', ModCtrl|ModShift), "\x03"},
		{"raw etx rune", normal, RuneKey('\x03', 0), "\x03"},
		{"ctrl space", normal, RuneKey(' ', ModCtrl), "\x00"},
		{"ctrl backslash", normal, RuneKey('\\', ModCtrl), "\x1c"},
		{"ctrl underscore key", normal, RuneKey('_', ModCtrl), "\x1f"},
		{"alt b", normal, RuneKey('b', ModAlt), "\x1bb"},
		{"meta b", normal, RuneKey('b', ModMeta), "\x1bb"},
		{"alt shift B", normal, RuneKey('B', ModAlt|ModShift), "\x1bB"},
		{"ctrl alt x", normal, RuneKey('x', ModCtrl|ModAlt), "\x1b\x18"},
		{"up normal", normal, special(KeyUp, 0), "\x1b[A"},
		{"down normal", normal, special(KeyDown, 0), "\x1b[B"},
		{"right normal", normal, special(KeyRight, 0), "\x1b[C"},
		{"left normal", normal, special(KeyLeft, 0), "\x1b[D"},
		{"up app", app, special(KeyUp, 0), "\x1bOA"},
		{"down app", app, special(KeyDown, 0), "\x1bOB"},
		{"right app", app, special(KeyRight, 0), "\x1bOC"},
		{"left app", app, special(KeyLeft, 0), "\x1bOD"},
		{"home normal", normal, special(KeyHome, 0), "\x1b[H"},
		{"end normal", normal, special(KeyEnd, 0), "\x1b[F"},
		{"home app", app, special(KeyHome, 0), "\x1bOH"},
		{"end app", app, special(KeyEnd, 0), "\x1bOF"},
		{"shift up", normal, special(KeyUp, ModShift), "\x1b[1;2A"},
		{"shift up app", app, special(KeyUp, ModShift), "\x1b[1;2A"},
		{"alt left", normal, special(KeyLeft, ModAlt), "\x1b[1;3D"},
		{"ctrl right", normal, special(KeyRight, ModCtrl), "\x1b[1;5C"},
		{"ctrl shift left", normal, special(KeyLeft, ModCtrl|ModShift), "\x1b[1;6D"},
		{"ctrl alt shift down", normal, special(KeyDown, ModCtrl|ModAlt|ModShift), "\x1b[1;8B"},
		{"ctrl home", normal, special(KeyHome, ModCtrl), "\x1b[1;5H"},
		{"shift end", app, special(KeyEnd, ModShift), "\x1b[1;2F"},
		{"insert", normal, special(KeyInsert, 0), "\x1b[2~"},
		{"delete", normal, special(KeyDelete, 0), "\x1b[3~"},
		{"ctrl delete", normal, special(KeyDelete, ModCtrl), "\x1b[3;5~"},
		{"page up", normal, special(KeyPgUp, 0), "\x1b[5~"},
		{"page down", normal, special(KeyPgDn, 0), "\x1b[6~"},
		{"shift page up", normal, special(KeyPgUp, ModShift), "\x1b[5;2~"},
		{"f1", normal, special(KeyF1, 0), "\x1bOP"},
		{"f4", normal, special(KeyF4, 0), "\x1bOS"},
		{"shift f1", normal, special(KeyF1, ModShift), "\x1b[1;2P"},
		{"ctrl f4", normal, special(KeyF4, ModCtrl), "\x1b[1;5S"},
		{"f5", normal, special(KeyF5, 0), "\x1b[15~"},
		{"f6", normal, special(KeyF6, 0), "\x1b[17~"},
		{"f10", normal, special(KeyF10, 0), "\x1b[21~"},
		{"f11", normal, special(KeyF11, 0), "\x1b[23~"},
		{"f12", normal, special(KeyF12, 0), "\x1b[24~"},
		{"alt f5", normal, special(KeyF5, ModAlt), "\x1b[15;3~"},
		{"ctrl shift f12", normal, special(KeyF12, ModCtrl|ModShift), "\x1b[24;6~"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(EncodeKey(tc.key, tc.modes)); got != tc.want {
				t.Errorf("EncodeKey = %q, want %q", got, tc.want)
			}
		})
	}

	// The same keys through each emulator, which must agree with the
	// table in both cursor modes (the x/vt one picks x/vt's encoder or
	// ours).
	for _, tc := range cases {
		forEachEmu(t, "emulator/"+tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 80, 24, 0)
			if tc.modes.AppCursor {
				_, _ = e.Write([]byte("\x1b[?1h"))
			}
			if e.Modes() != tc.modes {
				t.Fatalf("modes = %+v, want %+v", e.Modes(), tc.modes)
			}
			e.SendKey(tc.key)
			if got := e.reply(t); got != tc.want {
				t.Errorf("SendKey sent %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEncodeKeyUnknown(t *testing.T) {
	for _, k := range []Key{{}, {Key: KeyNone, Mod: ModCtrl}, {Key: KeyF12 + 1}, {Key: -1}} {
		if b := EncodeKey(k, InputModes{}); b != nil {
			t.Errorf("EncodeKey(%+v) = %q, want nil", k, b)
		}
	}
}

// TestEncodeKeyFromEventCases keeps the cases of the former KeyFromEvent
// test, written as the Keys the panes package maps those UI events to.
func TestEncodeKeyFromEventCases(t *testing.T) {
	cases := []struct {
		name string
		key  Key
		want string
	}{
		{"ctrl c", RuneKey('\x03', 0), "\x03"},
		{"alt b", RuneKey('b', ModAlt), "\x1bb"},
		{"backspace2", Key{Key: KeyBackspace}, "\x7f"},
		{"shift tab", Key{Key: KeyTab, Mod: ModShift}, "\x1b[Z"},
		{"shift up", Key{Key: KeyUp, Mod: ModShift}, "\x1b[1;2A"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(EncodeKey(tc.key, InputModes{})); got != tc.want {
				t.Errorf("encoded %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPasteBracketing(t *testing.T) {
	cases := []struct {
		name      string
		bracketed bool
		text      string
		want      string
	}{
		{"plain", false, "ls\n", "ls\n"},
		{"bracketed", true, "ls\n", "\x1b[200~ls\n\x1b[201~"},
		{"end marker removed", true, "a\x1b[201~rm -rf x\n", "\x1b[200~arm -rf x\n\x1b[201~"},
		{"nested end marker removed", true, "a\x1b[20\x1b[201~1~b", "\x1b[200~ab\x1b[201~"},
	}
	for _, tc := range cases {
		forEachEmu(t, tc.name, func(t *testing.T, k emuKind) {
			e := k.start(t, 80, 24, 0)
			if tc.bracketed {
				_, _ = e.Write([]byte("\x1b[?2004h"))
			}
			go e.Paste(tc.text)
			var got string
			for len(got) < len(tc.want) {
				got += e.reply(t)
			}
			if got != tc.want {
				t.Errorf("Paste sent %q, want %q", got, tc.want)
			}
		})
	}
}
