package diet

import (
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

// errScanChunk is how much text errorLines tests for error words at once.
const errScanChunk = 256 << 10

// errorLines returns up to n error lines from the start of text and up to
// n from its end (fewer when they overlap), in order. Chunks of text with
// no error word are skipped without splitting them into lines, so a huge
// clean log costs a few substring scans.
func errorLines(text string, n int) []string {
	chunks := lineChunks(text, errScanChunk)
	var head []string
	headEnd := -1
	for ci, c := range chunks {
		if len(head) >= n {
			break
		}
		headEnd = ci
		if !hasErrWord(asciiLower(c)) {
			continue
		}
		for _, l := range strings.Split(c, "\n") {
			if len(head) < n && isErrorLine(l) {
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
		if !hasErrWord(asciiLower(c)) {
			continue
		}
		ls := strings.Split(c, "\n")
		for i := len(ls) - 1; i >= 0 && len(tail) < n; i-- {
			if isErrorLine(ls[i]) {
				tail = append(tail, ls[i])
			}
		}
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	return append(head, tail...)
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
