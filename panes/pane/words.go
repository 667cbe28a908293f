package pane

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// FitWords returns s when it is at most w columns wide, else as many of
// its words as fit, without a trailing separator (" · ", ","), followed
// by "…", so that no word is cut; a first word wider than w is cut, as
// nothing else would show.
func FitWords(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	if w <= 1 {
		return strings.Repeat("…", max(w, 0))
	}
	cut := strings.TrimRight(runewidth.Truncate(s, w-1, ""), " ")
	if i := strings.LastIndexByte(cut, ' '); i > 0 && s[len(cut)] != ' ' {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ·,") + "…"
}

// WrapWords breaks s at spaces into lines of at most w columns, so that
// no word is cut; a word wider than w gets a line of its own, fitted as
// FitWords fits it.
func WrapWords(s string, w int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case runewidth.StringWidth(line)+1+runewidth.StringWidth(word) <= w:
			line += " " + word
		default:
			lines = append(lines, FitWords(line, w))
			line = word
		}
	}
	return append(lines, FitWords(line, w))
}
