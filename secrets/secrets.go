// Package secrets finds keys, tokens, passwords and private keys in text
// before it leaves the vault: in block summaries and refs, compaction
// summaries, session titles, memories and logs.
//
// Detection runs gitleaks' maintained default rule set (its embedded
// gitleaks.toml, about 220 rules) with gitleaks' semantics: a keyword
// prefilter chooses the rules worth running, a rule's secret group is what
// gets redacted, and its entropy floor and allowlists drop placeholders. A
// few kws rules add what that set leaves out because it scans repositories,
// not conversations: "password: value" and "password is value" in prose,
// credentials in URLs, .env and INI assignments, bearer tokens, and AWS's
// documented example key, which gitleaks allowlists on purpose.
//
// gitleaks' rules arrive as a table (gitleaks_rules.go) that a test
// generates with gitleaks' own config code and keeps current; a rule's
// regexp is compiled when a text first wakes the rule, so a process pays
// for the few rules it runs, not for decoding and compiling all of them.
//
// The package is a leaf: it imports only the standard library and an
// Aho-Corasick matcher, so every layer can use it.
package secrets

import (
	"slices"
	"strings"
)

// Redacted replaces every secret in redacted text.
const Redacted = "[REDACTED]"

// Span is one secret found in a text: the byte range text[Start:End] and
// the id of the rule that found it (a gitleaks rule id such as
// "aws-access-token", or a kws rule id starting with "kws-").
type Span struct {
	Start, End int
	Rule       string
}

// Find returns the secrets in text, ordered by start. Spans may overlap
// when two rules match the same secret.
func Find(text string) []Span {
	if text == "" {
		return nil
	}
	d := load()
	lower := asciiLower(text)
	var spans []Span
	for _, w := range d.windows(text, lower) {
		spans = d.rules[w.rule].find(text, w, spans)
	}
	slices.SortFunc(spans, func(a, b Span) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return a.End - b.End
	})
	return spans
}

// Contains reports whether text holds a secret.
func Contains(text string) bool { return len(Find(text)) > 0 }

// Redact returns text with every secret replaced by Redacted; overlapping
// or adjacent secrets become one marker. Text without secrets is returned
// unchanged.
func Redact(text string) string {
	spans := Find(text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].Start, spans[i].End
		for i++; i < len(spans) && spans[i].Start <= end; i++ {
			end = max(end, spans[i].End)
		}
		if start < last {
			start = last
		}
		b.WriteString(text[last:start])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// Rules lists the ids of the rules Find runs, gitleaks' and kws's.
func Rules() []string {
	d := load()
	ids := make([]string, len(d.rules))
	for i, r := range d.rules {
		ids[i] = r.id
	}
	return ids
}

// asciiLower lowercases ASCII letters and keeps every other byte, so
// offsets in the result are offsets in s (strings.ToLower may change the
// length of non-ASCII text).
func asciiLower(s string) []byte {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return b
}
