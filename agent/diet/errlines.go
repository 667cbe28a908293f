package diet

import (
	"regexp"
	"strings"
)

// errWords are the lowercase words every line matching reErr contains, so
// a cheap substring test can skip the regexp for most lines.
var errWords = []string{"error", "exception", "traceback", "fail", "fatal", "panic", "denied", "not found", "no such file", "segmentation fault"}

// asciiLower lowercases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func hasErrWord(lower string) bool {
	for _, w := range errWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// isErrorLine reports whether line reports an error or failure.
func isErrorLine(line string) bool {
	return hasErrWord(asciiLower(line)) && reErr.MatchString(line)
}

// keepWords are lowercase hints every line matching reKeep contains.
var keepWords = []string{"pass", "fail", "skip", "error", "test", "ran ", "http://", "https://", "#", "===", "---", "***"}

// reKeep matches the lines ingestion keeps beside the errors: test
// summaries (pytest, unittest, go test, cargo, jest), URLs and headings
// (markdown, or a title between rules as pytest and many logs print).
var reKeep = regexp.MustCompile(`(?i)(\b\d+ (passed|failed|skipped|errors?|tests?|xfailed|deselected)\b|^ran \d+ tests? in|^failed \(|^(fail|pass)\s+\S+\s+[\d.]+s$|test result:|^tests?:\s+\d|https?://\S|^#{1,6} \S|^[=\-*]{3,} ?\S.*?[=\-*]{3,}$)`)

func hasKeepWord(lower string) bool {
	for _, w := range keepWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// isEvidenceLine reports whether ingestion keeps line: an error or
// failure, a test summary, a URL or a heading.
func isEvidenceLine(line string) bool {
	lower := asciiLower(line)
	return hasErrWord(lower) && reErr.MatchString(line) || hasKeepWord(lower) && reKeep.MatchString(strings.TrimSpace(line))
}

// errScanChunk is how much text errorLines tests for error words at once.
const errScanChunk = 256 << 10

// errorLines returns up to n evidence lines (isEvidenceLine) from the
// start of text and up to n from its end (fewer when they overlap), in
// order. Chunks of text with no hint word are skipped without splitting
// them into lines, so a huge clean log costs a few substring scans.
func errorLines(text string, n int) []string {
	chunks := lineChunks(text, errScanChunk)
	var head []string
	headEnd := -1
	for ci, c := range chunks {
		if len(head) >= n {
			break
		}
		headEnd = ci
		if !hasHint(c) {
			continue
		}
		for _, l := range strings.Split(c, "\n") {
			if len(head) < n && isEvidenceLine(l) {
				head = append(head, l)
			}
		}
	}
	if len(head) < n {
		return head
	}
	var tail []string
	for ci := len(chunks) - 1; ci > headEnd && len(tail) < n; ci-- {
		c := chunks[ci]
		if !hasHint(c) {
			continue
		}
		ls := strings.Split(c, "\n")
		for i := len(ls) - 1; i >= 0 && len(tail) < n; i-- {
			if isEvidenceLine(ls[i]) {
				tail = append(tail, ls[i])
			}
		}
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	return append(head, tail...)
}

// hasHint reports whether chunk c may hold an evidence line.
func hasHint(c string) bool {
	lower := asciiLower(c)
	return hasErrWord(lower) || hasKeepWord(lower)
}

// lineChunks cuts text into pieces of about size bytes that end at line
// breaks (the break itself is dropped).
func lineChunks(text string, size int) []string {
	var out []string
	for len(text) > 0 {
		if len(text) <= size {
			return append(out, text)
		}
		cut := strings.IndexByte(text[size:], '\n')
		if cut < 0 {
			return append(out, text)
		}
		out = append(out, text[:size+cut])
		text = text[size+cut+1:]
	}
	return out
}
