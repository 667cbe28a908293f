// Package termsafe makes untrusted text (model output, tool output, file
// contents) safe to print on a real terminal outside PTY panes: terminal
// escape sequences and control characters are removed and invalid UTF-8
// is replaced, so no text can move the cursor, retitle the window or
// change colours.
package termsafe

import (
	"regexp"
	"strings"
	"sync"
)

// reEscape matches, once compiled at first use (a thin client starting never
// needs it), CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS, APC,
// PM and SOS strings, and two-byte escapes.
var reEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]P_^X][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -~]?)|\x9b[0-?]*[ -/]*[@-~]?`)
})

// Strip returns s without escape sequences and control characters other
// than newline and tab, with invalid UTF-8 replaced by U+FFFD.
func Strip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsAny(s, "\x1b\u009b") {
		s = reEscape().ReplaceAllString(s, "")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return -1
		}
		return r
	}, s)
}

// OneLine is Strip for text shown on one line: newlines and tabs become
// spaces.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, Strip(s))
}
