package tools

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// sniffLen is how much of a file decides whether it is binary.
const sniffLen = 8 << 10

// isBinary reports whether a file that starts with head is binary: it has
// a NUL byte in its first 8 KiB.
func isBinary(head []byte) bool {
	return bytes.IndexByte(head[:min(len(head), sniffLen)], 0) >= 0
}

// lineReader reads lines of any length with bounded memory: each line is
// returned without its terminator ("\n" or "\r\n") and clipped to max
// bytes; the clipped flag and full length say when it was longer.
type lineReader struct {
	r    *bufio.Reader
	max  int
	buf  []byte
	line int // number of the last line returned, from 1
}

func newLineReader(r io.Reader, max int) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{r: br, max: max}
}

// next returns the next line (valid until the following call), its full
// length in bytes without the terminator, and io.EOF once no line is left.
func (l *lineReader) next() (line []byte, full int, err error) {
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		full += len(frag)
		if room := l.max - len(l.buf); room > 0 {
			l.buf = append(l.buf, frag[:min(room, len(frag))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && full == 0 {
			return nil, 0, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		if err == nil { // the line ended with "\n"
			if len(l.buf) == full {
				l.buf = l.buf[:len(l.buf)-1]
			}
			full--
			if len(l.buf) == full && full > 0 && l.buf[full-1] == '\r' {
				l.buf = l.buf[:full-1]
				full--
			}
		}
		l.line++
		return l.buf, full, nil
	}
}

// lineSpan is a run of numbered lines read from a file.
type lineSpan struct {
	text  string // "  12| text" lines
	last  int    // number of the last line shown, 0 when none
	total int    // lines in the file when the read reached its end, else 0
	cut   bool   // stopped early to stay within the byte budget
}

// numbered renders lines from..to (to 0: up to the end) of r as
// "  12| text" lines, stopping before the output would pass budget bytes
// (at least one line is always shown). Long lines are clipped.
func numbered(r io.Reader, from, to, budget int) (lineSpan, error) {
	lr := newLineReader(r, shownLineMax)
	var sp lineSpan
	var b strings.Builder
	for to == 0 || lr.line < to {
		line, full, err := lr.next()
		if err == io.EOF {
			sp.total = lr.line
			break
		}
		if err != nil {
			return sp, err
		}
		if lr.line < from {
			continue
		}
		text := strings.ToValidUTF8(string(line), "\uFFFD")
		if full > len(line) {
			text += fmt.Sprintf(" … [line is %d bytes]", full)
		}
		entry := fmt.Sprintf("%4d| %s\n", lr.line, text)
		if sp.last > 0 && b.Len()+len(entry) > budget {
			sp.cut = true
			break
		}
		b.WriteString(entry)
		sp.last = lr.line
	}
	sp.text = b.String()
	return sp, nil
}

// note tells the model where the span ended and how to go on.
func (sp lineSpan) note(rel string) string {
	switch {
	case sp.cut:
		return fmt.Sprintf("… [stopped after line %d to stay within max_bytes; continue with mode=range start_line=%d]\n", sp.last, sp.last+1)
	case sp.total > 0:
		return fmt.Sprintf("[end of %s: %d lines]\n", rel, sp.total)
	}
	return ""
}
