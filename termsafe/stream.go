package termsafe

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxPending bounds the unfinished escape sequence a Stream holds back; a
// longer one is stripped as it stands, as Strip strips an unterminated one.
const maxPending = 4096

// reUnfinished matches an escape sequence at the start of a string that
// has not ended yet: a lone ESC, a CSI without its final byte, or an OSC,
// DCS, APC, PM or SOS string without BEL or ST.
var reUnfinished = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\x1b(?:\[[0-?]*[ -/]*|[\]P_^X][^\x07\x1b]*)?|\x{9b}[0-?]*[ -/]*)$`)
})

// Stream strips escape sequences from text that arrives in pieces, such as
// a streamed model answer. A sequence cut between two pieces is held back
// until the piece that ends it, then removed whole, so none of its payload
// (a clipboard write's data, a window title) shows as text; a UTF-8
// character cut between pieces is held back likewise. The zero value
// is ready to use; a Stream is not safe for concurrent use.
type Stream struct {
	pending string
}

// Strip returns piece (after what was held back) without escape sequences
// and control characters, holding back an escape sequence it does not end.
func (s *Stream) Strip(piece string) string {
	text := s.pending + piece
	s.pending = ""
	if i := cutRune(text); i < len(text) {
		text, s.pending = text[:i], text[i:]
	}
	if i := strings.LastIndexAny(text, "\x1b\u009b"); i >= 0 && len(text)-i <= maxPending && reUnfinished().MatchString(text[i:]) {
		text, s.pending = text[:i], text[i:]+s.pending
	}
	return Strip(text)
}

// cutRune returns where an unfinished UTF-8 sequence ends text, or
// len(text) when its last rune is whole (or not UTF-8 at all).
func cutRune(text string) int {
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			if utf8.FullRuneInString(text[i:]) {
				return len(text)
			}
			return i
		}
	}
	return len(text)
}

// Reset drops what is held back, for a stream that starts over.
func (s *Stream) Reset() {
	s.pending = ""
}
