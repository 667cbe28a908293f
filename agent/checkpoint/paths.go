package checkpoint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kwsdev/kws/termsafe"
)

// ErrBadPath is returned for a manifest path that is not a clean relative
// path inside the root (absolute, empty, with "." or ".." components or a
// NUL byte): nothing is ever read or written through one.
var ErrBadPath = errors.New("checkpoint: path outside the workspace")

// checkRel accepts p when it is a clean slash-separated relative path:
// what the walk produces and what may be restored. Anything else in a
// manifest means the vault was tampered with.
func checkRel(p string) error {
	if p == "" || p[0] == '/' || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("%w: %s", ErrBadPath, Name(p))
	}
	for part := range strings.SplitSeq(p, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%w: %s", ErrBadPath, Name(p))
		}
	}
	return nil
}

// Name returns the workspace path p as it may be shown on a terminal:
// p itself when it is valid UTF-8 of printable characters, else p quoted
// as a Go string, so that a name holding a newline, an escape sequence or
// a bidirectional override is shown escaped and two such names never look
// alike.
func Name(p string) string {
	plain := utf8.ValidString(p) && !strings.ContainsFunc(p, func(r rune) bool {
		return !unicode.IsGraphic(r) || r == '"' || r == '\\'
	})
	if plain {
		return termsafe.OneLine(p)
	}
	return termsafe.OneLine(strconv.Quote(p))
}
