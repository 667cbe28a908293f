// Package lexical is the word-matching side of kws's retrieval, shared by
// the vault's block search and memory's hybrid recall: term extraction
// (words, identifiers split at underscores and case changes, paths and
// their base names; for prose, stopwords dropped and English stems) and
// an in-memory BM25 inverted index with removal and top-k ranking.
package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Word length limits, in characters: shorter or longer words are not terms.
const (
	minWord = 2
	maxWord = 64
	maxPath = 256 // bytes of a path-like token indexed whole
)

// Analyzer turns text into index terms. Index and query text must go
// through the same Analyzer.
type Analyzer struct {
	// ASCII limits words to ASCII letters, digits and '_': other
	// characters separate words. The vault's persisted term vectors were
	// made this way.
	ASCII bool
	// Prose drops English stopwords and indexes each remaining word (and
	// identifier part) by its stem ("went to the meetings" → went,
	// meet). Paths stay whole.
	Prose bool
}

// Code is the vault's analyzer: ASCII words, identifiers and paths, every
// word as written (lowercased).
var Code = Analyzer{ASCII: true}

// Prose is the analyzer for natural-language text such as memories and
// chat: Unicode words, no stopwords, stemmed, with identifiers and paths
// still split as in Code.
var Prose = Analyzer{Prose: true}

func (a Analyzer) isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return !a.ASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

func (a Analyzer) isPath(r rune) bool { return a.isWord(r) || r == '/' || r == '.' || r == '-' }

// Each calls fn with every term of text, repeated as often as it occurs:
// every lowercase word of 2 to 64 characters and its identifier parts
// (see subwords), and for every path-like token (one holding '/' or a
// dot extension) the whole path and its base name.
func (a Analyzer) Each(text []byte, fn func(string)) {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		if !a.isPath(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRune(text[j:])
			if !a.isPath(r) {
				break
			}
			j += n
		}
		tok := strings.Trim(string(text[i:j]), "./-")
		i = j
		if strings.ContainsAny(tok, "/.") && len(tok) <= maxPath {
			low := strings.ToLower(tok)
			fn(low)
			if k := strings.LastIndexByte(low, '/'); k >= 0 && k+1 < len(low) {
				fn(low[k+1:])
			}
		}
		a.words(tok, fn)
	}
}

// words calls fn with the words of tok, a path-like token.
func (a Analyzer) words(tok string, fn func(string)) {
	for s := 0; s < len(tok); {
		r, n := utf8.DecodeRuneInString(tok[s:])
		if !a.isWord(r) {
			s += n
			continue
		}
		e := s + n
		for e < len(tok) {
			r, n := utf8.DecodeRuneInString(tok[e:])
			if !a.isWord(r) {
				break
			}
			e += n
		}
		if w := tok[s:e]; fits(w) {
			a.emit(strings.ToLower(w), fn)
			subwords(w, func(p string) { a.emit(p, fn) })
		}
		s = e
	}
}

// fits reports whether w is 2 to 64 characters long.
func fits(w string) bool {
	if len(w) < minWord {
		return false
	}
	n := utf8.RuneCountInString(w)
	return n >= minWord && n <= maxWord
}

// emit passes a lowercase word on, as it is or, for prose, stemmed and
// unless it is a stopword.
func (a Analyzer) emit(w string, fn func(string)) {
	if !a.Prose {
		fn(w)
		return
	}
	if stopwords[w] {
		return
	}
	fn(Stem(w))
}

// subwords calls fn with the lowercase parts of an identifier split at
// underscores and lower-to-upper case changes (AssertionError: assertion,
// error), when there is more than one part.
func subwords(w string, fn func(string)) {
	var parts []string
	start := 0
	prev := rune(0)
	for i, r := range w + "_" {
		if i == len(w) || r == '_' || unicode.IsUpper(r) && unicode.IsLower(prev) {
			if p := strings.Trim(w[start:i], "_"); utf8.RuneCountInString(p) >= minWord {
				parts = append(parts, strings.ToLower(p))
			}
			start = i
		}
		prev = r
	}
	if len(parts) > 1 {
		for _, p := range parts {
			fn(p)
		}
	}
}

// Terms returns the distinct terms of text in first-seen order.
func (a Analyzer) Terms(text string) []string {
	seen := map[string]bool{}
	var out []string
	a.Each([]byte(text), func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}
