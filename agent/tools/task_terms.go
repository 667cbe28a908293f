package tools

import (
	"path"
	"strings"
)

// stopWords are dropped from task terms.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true,
	"into": true, "when": true, "what": true, "where": true, "which": true, "should": true,
	"would": true, "could": true, "make": true, "fix": true, "use": true, "using": true,
	"have": true, "has": true, "are": true, "was": true, "were": true, "not": true, "but": true,
	"all": true, "any": true, "can": true, "will": true, "does": true, "how": true, "why": true,
	"its": true, "our": true, "your": true, "you": true, "then": true, "than": true, "also": true,
	"each": true, "some": true, "more": true, "them": true, "they": true, "there": true,
	"their": true, "been": true, "only": true, "just": true, "like": true, "need": true,
	"needs": true, "want": true, "file": true, "files": true, "code": true, "add": true,
	"change": true, "update": true, "please": true, "implement": true, "about": true,
}

// taskTerms extracts the lower-case search terms of a task: words of at
// least three characters that are not stop words, plus the parts of
// camelCase and snake_case identifiers.
func taskTerms(task string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		w = strings.ToLower(w)
		if len(w) >= 3 && !stopWords[w] && !seen[w] && len(out) < 24 {
			seen[w] = true
			out = append(out, w)
		}
	}
	words := strings.FieldsFunc(task, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	})
	for _, w := range words {
		add(strings.Trim(w, "_"))
		for _, p := range identParts(w) {
			add(p)
		}
	}
	return out
}

// identParts splits an identifier at underscores and lower-to-upper case
// changes: "parseHTTPRequest_v2" gives parse, HTTP, Request, v2.
func identParts(w string) []string {
	var parts []string
	start := 0
	for i := 1; i <= len(w); i++ {
		split := i == len(w) || w[i] == '_' ||
			(w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z') ||
			(i+1 < len(w) && w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'A' && w[i-1] <= 'Z' && w[i+1] >= 'a' && w[i+1] <= 'z')
		if split {
			if p := strings.Trim(w[start:i], "_"); p != "" && p != w {
				parts = append(parts, p)
			}
			start = i
		}
	}
	return parts
}

// isTestPath reports whether rel looks like a test file: Go, Python, JS/TS
// and Ruby naming conventions, or a file under a test directory.
func isTestPath(rel string) bool {
	base := path.Base(rel)
	switch {
	case strings.HasSuffix(base, "_test.go"), strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_test.py"), strings.Contains(base, ".test."), strings.Contains(base, ".spec."),
		strings.HasSuffix(base, "_spec.rb"), strings.HasSuffix(base, "_test.rb"):
		return true
	}
	for _, dir := range strings.Split(path.Dir(rel), "/") {
		switch dir {
		case "test", "tests", "__tests__", "spec", "testdata":
			return true
		}
	}
	return false
}
