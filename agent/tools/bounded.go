package tools

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// HeadTail is an io.Writer that keeps the first headMax bytes and, in a
// ring, the last tailMax bytes of everything written, and counts the rest.
// Its memory is bounded however much is written: what a command prints
// (the shell tool's, a job's, a hook's) goes into one. It is safe for
// concurrent use.
type HeadTail struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	ring    []byte // allocated on first overflow of head
	pos     int    // next write position in ring
	filled  int    // bytes of ring in use
	total   int64
}

// NewHeadTail returns a HeadTail keeping headMax bytes from the start and
// tailMax from the end.
func NewHeadTail(headMax, tailMax int) *HeadTail {
	return &HeadTail{headMax: headMax, tailMax: tailMax}
}

// Write records p; it never fails.
func (b *HeadTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tailMax == 0 {
		return n, nil
	}
	if b.ring == nil {
		b.ring = make([]byte, b.tailMax)
	}
	if len(p) >= b.tailMax {
		copy(b.ring, p[len(p)-b.tailMax:])
		b.pos, b.filled = 0, b.tailMax
		return n, nil
	}
	for len(p) > 0 {
		k := copy(b.ring[b.pos:], p)
		p = p[k:]
		b.pos = (b.pos + k) % b.tailMax
		b.filled = min(b.filled+k, b.tailMax)
	}
	return n, nil
}

// Total returns the number of bytes written.
func (b *HeadTail) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// String returns the head and the tail; when bytes were dropped between
// them, a marker line says how many.
func (b *HeadTail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var tail []byte
	if b.filled < b.tailMax {
		tail = b.ring[:b.filled]
	} else {
		tail = append(append([]byte(nil), b.ring[b.pos:]...), b.ring[:b.pos]...)
	}
	if b.total == int64(len(b.head)+len(tail)) {
		return string(b.head) + string(tail)
	}
	head := b.head
	for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head[max(0, len(head)-utf8.UTFMax):]); i++ {
		head = head[:len(head)-1]
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	cut := b.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n… [%d bytes cut: kept the first %d and the last %d of %d] …\n%s",
		head, cut, len(head), len(tail), b.total, tail)
}

// clipText bounds s to max bytes at a UTF-8 boundary, saying how much was
// cut.
func clipText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := runeStart(s, max)
	return s[:cut] + fmt.Sprintf("\n… [output cut at %d of %d bytes]\n", cut, len(s))
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, i int) int {
	for j := i; j > 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}

// clipLine bounds one displayed line to limit bytes, keeping the window that
// starts a little before byte offset at.
func clipLine(line string, at, limit int) string {
	line = strings.ToValidUTF8(line, "\uFFFD")
	if len(line) <= limit {
		return line
	}
	start := 0
	if at > limit/4 {
		start = runeStart(line, at-limit/4)
	}
	end := start + limit
	if end >= len(line) {
		end = len(line)
		start = runeStart(line, max(0, end-limit))
	} else {
		end = runeStart(line, end)
	}
	out := line[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += fmt.Sprintf("… [%d bytes]", len(line))
	}
	return out
}
