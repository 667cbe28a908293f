// Package shellwords splits a line into words as a POSIX shell does,
// without expansions: the one splitter of kws's command lines (a key bound
// to "spawn 3 tester \"run the suite\"") and of a skill's arguments.
package shellwords

import (
	"strings"
	"unicode"
)

// Split splits s into words: white space separates words; single quotes
// keep everything literally; double quotes keep everything but a backslash
// before ", \, $ or `; outside quotes a backslash keeps the next character
// literally. An unterminated quote runs to the end of s, and open is the
// quote it left open (0 when none was).
func Split(s string) (words []string, open rune) {
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case open == '\'':
			if r == '\'' {
				open = 0
			} else {
				cur.WriteRune(r)
			}
		case open == '"':
			switch {
			case r == '"':
				open = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			open, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, open
}
