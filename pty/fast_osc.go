package pty

import (
	"strings"
	"unicode/utf8"
)

// oscDispatch performs the collected OSC string, which ESC (st) or BEL
// ended: OSC 0 and 2 set the title; OSC 4 sets or queries palette entries
// and OSC 5 special colours, OSC 104 and 105 reset them; OSC 8 opens and
// closes hyperlinks (see openLink); OSC 10, 11 and 12 set or query the
// default foreground, background and cursor colours (110, 111 and 112
// reset them), answered with the pane's colours, or the ones the program
// set; replies end as the query did. OSC 52 sets the clipboard through
// the clipboard handler, when there is one (see decodeOSC52), OSC 9 and
// 777 notify (see notification), and OSC 133;A marks the row where a
// shell prompt starts (the other OSC 133 marks, command start, output
// start and end, are not kept). Every other command (icon names) is
// ignored.
func (e *FastEmulator) oscDispatch(st bool) {
	cmd, text, ok := strings.Cut(string(e.osc), ";")
	var r string
	switch {
	case ok && (cmd == "0" || cmd == "2"):
		e.title = sanitizeTitle(text)
	case cmd == "4" || cmd == "104" || cmd == "5" || cmd == "105":
		if i := strings.LastIndexByte(text, ';'); e.oscLong && i >= 0 {
			// Cut short by the OSC limit, the last spec may read as
			// another colour.
			text = text[:i]
		}
		r = e.pal.osc(cmd, text, st, e.colors.shown(10))
	case cmd == "8":
		e.openLink(text)
	case cmd == "52":
		if t, ok := decodeOSC52(text); ok && !e.oscLong && e.clipboard != nil {
			e.clipboard(t)
		}
	case cmd == "133":
		if text == "A" || strings.HasPrefix(text, "A;") {
			e.scr.lines[e.cur.y].flags |= linePrompt
		}
	default:
		if t, ok := notification(cmd, text); ok {
			if e.alert != nil {
				e.alert(t)
			}
			return
		}
		r = e.colors.osc(cmd, text, st)
	}
	if r != "" {
		e.reply(r)
	}
}

// notification is the text of a desktop notification, OSC 9 (iTerm2's:
// "9;text") or OSC 777 (rxvt's: "777;notify;title;body"), made safe to
// show; ok is false for any other OSC and for OSC 9;4, ConEmu's progress
// report.
func notification(cmd, text string) (string, bool) {
	switch cmd {
	case "9":
		if strings.HasPrefix(text, "4;") {
			return "", false
		}
		return sanitizeTitle(text), true
	case "777":
		kind, rest, _ := strings.Cut(text, ";")
		if kind != "notify" {
			return "", false
		}
		title, body, _ := strings.Cut(rest, ";")
		if body == "" {
			return sanitizeTitle(title), true
		}
		return sanitizeTitle(title + ": " + body), true
	}
	return "", false
}

// sanitizeTitle makes a title safe to show: invalid UTF-8 becomes U+FFFD,
// and C0 and C1 control characters and bidirectional formatting
// characters are dropped.
func sanitizeTitle(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}
