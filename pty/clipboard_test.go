package pty

import (
	"encoding/base64"
	"strings"
	"testing"
)

// b64 is s in base64, as OSC 52 carries it.
func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestOSC52SetsTheClipboard(t *testing.T) {
	long := strings.Repeat("x", MaxClipboard)
	cases := []struct {
		name, input string
		want        []string
	}{
		{"BEL ends it", "\x1b]52;c;" + b64("inner-osc52") + "\x07", []string{"inner-osc52"}},
		{"ST ends it", "\x1b]52;c;" + b64("with ST") + "\x1b\\", []string{"with ST"}},
		{"empty selection means the clipboard", "\x1b]52;;" + b64("empty sel") + "\x07", []string{"empty sel"}},
		{"primary and select", "\x1b]52;ps;" + b64("two") + "\x07", []string{"two"}},
		{"text stays printed around it", "a\x1b]52;c;" + b64("x\ny") + "\x07b", []string{"x\ny"}},
		{"the largest payload", "\x1b]52;c;" + b64(long) + "\x07", []string{long}},
		{"a query is ignored", "\x1b]52;c;?\x07", nil},
		{"malformed base64 is ignored", "\x1b]52;c;!!notbase64\x07", nil},
		{"an empty payload is ignored", "\x1b]52;c;\x07", nil},
		{"an unknown selection is ignored", "\x1b]52;z;" + b64("no") + "\x07", nil},
		{"oversized is ignored", "\x1b]52;c;" + b64(long+"y") + "\x07", nil},
		{"far oversized is ignored", "\x1b]52;c;" + b64(long+long) + "\x07", nil},
		{"cancelled by CAN", "\x1b]52;c;" + b64("gone") + "\x18", nil},
	}
	forEachEmu(t, "", func(t *testing.T, k emuKind) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := k.start(t, 20, 4, 0)
				var got []string
				e.SetClipboardHandler(func(text string) { got = append(got, text) })
				_, _ = e.Write([]byte(tc.input + "\x1b[5n"))
				// The device status report comes back first: OSC 52
				// never answers, not even a query.
				if r := e.reply(t); r != "\x1b[0n" {
					t.Errorf("reply %q, want only the status report", r)
				}
				if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
					t.Errorf("clipboard got %d sets (%.40q), want %.40q", len(got), got, tc.want)
				}
			})
		}
	})
}

func TestOSC52WithoutAHandlerIsIgnored(t *testing.T) {
	forEachEmu(t, "", func(t *testing.T, k emuKind) {
		e := k.start(t, 20, 4, 0)
		_, _ = e.Write([]byte("a\x1b]52;c;" + b64("x") + "\x07b"))
		if got := screenLines(e)[0]; got != "ab" {
			t.Errorf("screen %q, want ab", got)
		}
	})
}

func TestOSC52LimitLeavesOtherOSCAlone(t *testing.T) {
	e := emuKindNamed("fast").start(t, 20, 4, 0)
	_, _ = e.Write([]byte("\x1b]2;" + strings.Repeat("t", 2*maxOSC) + "\x07"))
	if got := len(e.Title()); got != maxOSC-2 {
		t.Errorf("title of %d bytes, want it cut to %d", got, maxOSC-2)
	}
}
