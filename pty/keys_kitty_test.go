package pty

import "testing"

func TestEncodeKeyKitty(t *testing.T) {
	kitty := InputModes{KittyFlags: KittyDisambiguate}
	app := InputModes{KittyFlags: KittyDisambiguate, AppCursor: true}
	special := func(k KeyCode, m Mod) Key { return Key{Key: k, Mod: m} }
	cases := []struct {
		name  string
		modes InputModes
		key   Key
		want  string
	}{
		{"escape", kitty, special(KeyEscape, 0), "\x1b[27u"},
		{"alt escape", kitty, special(KeyEscape, ModAlt), "\x1b[27;3u"},
		{"enter stays legacy", kitty, special(KeyEnter, 0), "\r"},
		{"tab stays legacy", kitty, special(KeyTab, 0), "\t"},
		{"backspace stays legacy", kitty, special(KeyBackspace, 0), "\x7f"},
		{"alt enter", kitty, special(KeyEnter, ModAlt), "\x1b[13;3u"},
		{"ctrl enter", kitty, special(KeyEnter, ModCtrl), "\x1b[13;5u"},
		{"shift tab", kitty, special(KeyTab, ModShift), "\x1b[9;2u"},
		{"backtab", kitty, special(KeyBacktab, 0), "\x1b[9;2u"},
		{"ctrl backspace", kitty, special(KeyBackspace, ModCtrl), "\x1b[127;5u"},
		{"text", kitty, RuneKey('a', 0), "a"},
		{"shifted text", kitty, RuneKey('A', 0), "A"},
		{"shifted symbol", kitty, RuneKey('!', ModShift), "!"},
		{"unicode text", kitty, RuneKey('é', 0), "é"},
		{"ctrl c", kitty, RuneKey('c', ModCtrl), "\x1b[99;5u"},
		{"ctrl i is not tab", kitty, RuneKey('i', ModCtrl), "\x1b[105;5u"},
		{"ctrl shift c", kitty, RuneKey('C', ModCtrl|ModShift), "\x1b[99;6u"},
		{"ctrl upper-case letter implies shift", kitty, RuneKey('C', ModCtrl), "\x1b[99;6u"},
		{"ctrl bracket is not escape", kitty, RuneKey('[', ModCtrl), "\x1b[91;5u"},
		{"ctrl space", kitty, RuneKey(' ', ModCtrl), "\x1b[32;5u"},
		{"alt b", kitty, RuneKey('b', ModAlt), "\x1b[98;3u"},
		{"meta b", kitty, RuneKey('b', ModMeta), "\x1b[98;3u"},
		{"alt shift B", kitty, RuneKey('B', ModAlt|ModShift), "\x1b[98;4u"},
		{"ctrl alt x", kitty, RuneKey('x', ModCtrl|ModAlt), "\x1b[120;7u"},
		{"alt unicode", kitty, RuneKey('é', ModAlt), "\x1b[233;3u"},
		{"raw control character stays", kitty, RuneKey('\x03', 0), "\x03"},
		{"up", kitty, special(KeyUp, 0), "\x1b[A"},
		{"up in application mode", app, special(KeyUp, 0), "\x1b[A"},
		{"end in application mode", app, special(KeyEnd, 0), "\x1b[F"},
		{"shift up", kitty, special(KeyUp, ModShift), "\x1b[1;2A"},
		{"f1", kitty, special(KeyF1, 0), "\x1b[P"},
		{"shift f1", kitty, special(KeyF1, ModShift), "\x1b[1;2P"},
		{"f3", kitty, special(KeyF3, 0), "\x1b[13~"},
		{"ctrl f3", kitty, special(KeyF3, ModCtrl), "\x1b[13;5~"},
		{"f5", kitty, special(KeyF5, 0), "\x1b[15~"},
		{"ctrl delete", kitty, special(KeyDelete, ModCtrl), "\x1b[3;5~"},
		{"legacy without the flag", InputModes{}, RuneKey('c', ModCtrl), "\x03"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(EncodeKey(tc.key, tc.modes)); got != tc.want {
				t.Errorf("EncodeKey = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFastEmulatorKittyFlags(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"none at first", "\x1b[?u", "\x1b[?0u"},
		{"push", "\x1b[>1u\x1b[?u", "\x1b[?1u"},
		{"push keeps the implemented flags", "\x1b[>31u\x1b[?u", "\x1b[?1u"},
		{"pop", "\x1b[>1u\x1b[<u\x1b[?u", "\x1b[?0u"},
		{"pop restores the previous flags", "\x1b[>1u\x1b[>0u\x1b[<1u\x1b[?u", "\x1b[?1u"},
		{"pop past the bottom", "\x1b[>1u\x1b[<5u\x1b[?u", "\x1b[?0u"},
		{"set", "\x1b[=1u\x1b[?u", "\x1b[?1u"},
		{"set or", "\x1b[=0u\x1b[=1;2u\x1b[?u", "\x1b[?1u"},
		{"set and-not", "\x1b[>1u\x1b[=1;3u\x1b[?u", "\x1b[?0u"},
		{"a full stack drops the oldest", "\x1b[>1u" + "\x1b[>0u\x1b[>0u\x1b[>0u\x1b[>0u\x1b[>0u\x1b[>0u\x1b[>0u\x1b[>0u" + "\x1b[<8u\x1b[?u", "\x1b[?0u"},
		{"the alternate screen has its own stack", "\x1b[>1u\x1b[?1049h\x1b[?u", "\x1b[?0u"},
		{"the main screen's stack survives", "\x1b[>1u\x1b[?1049h\x1b[>0u\x1b[?1049l\x1b[?u", "\x1b[?1u"},
		{"RIS clears the stacks", "\x1b[>1u\x1bc\x1b[?u", "\x1b[?0u"},
		{"CSI u without a marker still restores the cursor", "\x1b[>1u\x1b[2;3H\x1b[s\x1b[H\x1b[u\x1b[6n", "\x1b[2;3R"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fastEmu(t, 10, 4, tc.input).reply(t); got != tc.want {
				t.Errorf("reply %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFastEmulatorKittyKeys(t *testing.T) {
	e := fastEmu(t, 10, 4, "\x1b[>1u")
	if got := e.Modes().KittyFlags; got != KittyDisambiguate {
		t.Fatalf("Modes().KittyFlags = %d, want %d", got, KittyDisambiguate)
	}
	e.SendKey(Key{Key: KeyEscape})
	if got, want := e.reply(t), "\x1b[27u"; got != want {
		t.Errorf("Escape sent %q, want %q", got, want)
	}
	_, _ = e.Write([]byte("\x1b[<u"))
	e.SendKey(Key{Key: KeyEscape})
	if got, want := e.reply(t), "\x1b"; got != want {
		t.Errorf("Escape after the pop sent %q, want %q", got, want)
	}
}
