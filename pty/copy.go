package pty

import (
	"strings"
	"unicode/utf8"
)

// Pos is a position in a History: Line counts from the oldest scrollback
// line (the visible screen follows the scrollback), Col is a cell column.
type Pos struct {
	Line, Col int
}

// before reports whether p comes before q in reading order.
func (p Pos) before(q Pos) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// Match is one search hit: Start is its first cell, End the cell just
// after its last, on the same line.
type Match struct {
	Start, End Pos
}

// History is a frozen copy of the scrollback followed by the visible
// screen, the model copy mode works on: output arriving later does not
// shift its positions. It knows on which lines shell prompts started when
// the emulator kept OSC 133 marks.
type History struct {
	lines      [][]Cell
	scrollback int
	text       []string
	colAt      [][]int
	// prompt[i] is set when a prompt started on line i.
	prompt []bool
}

// promptMarker is an emulator that keeps the OSC 133 prompt marks;
// FastEmulator is one.
type promptMarker interface {
	// promptAt reports whether a prompt started on line i of the
	// history: the scrollback's lines, oldest first, then the screen's
	// rows.
	promptAt(i int) bool
}

// History copies the scrollback and the visible screen for copy mode.
func (s *Terminal) History() *History {
	s.mu.Lock()
	defer s.mu.Unlock()
	return newHistory(s.emu)
}

// newHistory copies e's scrollback and screen; the caller holds the lock.
func newHistory(e Emulator) *History {
	sb := e.Scrollback()
	sc := snapshot(e)
	lines := make([][]Cell, 0, sb+sc.Rows)
	for i := range sb {
		lines = append(lines, e.ScrollbackLine(i))
	}
	for y := range sc.Rows {
		lines = append(lines, sc.Line(y))
	}
	h := NewHistory(lines, sb)
	if pm, ok := e.(promptMarker); ok {
		for i := range h.prompt {
			h.prompt[i] = pm.promptAt(i)
		}
	}
	return h
}

// NewHistory builds a History from lines of cells, of which the first
// scrollback lines came from the scrollback.
func NewHistory(lines [][]Cell, scrollback int) *History {
	h := &History{
		lines:      lines,
		scrollback: scrollback,
		text:       make([]string, len(lines)),
		colAt:      make([][]int, len(lines)),
		prompt:     make([]bool, len(lines)),
	}
	for i, cells := range lines {
		var b strings.Builder
		cols := make([]int, 0, len(cells)+1)
		for x, c := range cells {
			if c.Width == 0 && c.Content == "" {
				continue
			}
			content := c.Content
			if content == "" {
				content = " "
			}
			b.WriteString(content)
			for range len(content) {
				cols = append(cols, x)
			}
		}
		h.text[i] = b.String()
		h.colAt[i] = append(cols, len(cells))
	}
	return h
}

// Len returns the number of lines: scrollback plus screen rows.
func (h *History) Len() int {
	return len(h.lines)
}

// ScrollbackLines returns how many of the first lines came from the
// scrollback; line ScrollbackLines() is the top row of the screen.
func (h *History) ScrollbackLines() int {
	return h.scrollback
}

// Line returns line i's cells, or nil when i is out of range.
func (h *History) Line(i int) []Cell {
	if i < 0 || i >= len(h.lines) {
		return nil
	}
	return h.lines[i]
}

// LineText returns line i as plain text without trailing spaces.
func (h *History) LineText(i int) string {
	return LineText(h.Line(i))
}

// IsPrompt reports whether a shell prompt started on line i, as the shell
// marked it with OSC 133;A.
func (h *History) IsPrompt(i int) bool {
	return i >= 0 && i < len(h.prompt) && h.prompt[i]
}

// MarkPrompt records that a shell prompt started on line i, as History
// does for the marks the terminal saw; it is for histories built with
// NewHistory. Lines out of range are ignored.
func (h *History) MarkPrompt(i int) {
	if i >= 0 && i < len(h.prompt) {
		h.prompt[i] = true
	}
}

// PrevPrompt returns the nearest line before line on which a prompt
// started (tmux's previous-prompt), and false when there is none.
func (h *History) PrevPrompt(line int) (int, bool) {
	for i := min(line, len(h.prompt)) - 1; i >= 0; i-- {
		if h.prompt[i] {
			return i, true
		}
	}
	return 0, false
}

// NextPrompt returns the nearest line after line on which a prompt
// started (tmux's next-prompt), and false when there is none.
func (h *History) NextPrompt(line int) (int, bool) {
	for i := max(line+1, 0); i < len(h.prompt); i++ {
		if h.prompt[i] {
			return i, true
		}
	}
	return 0, false
}

// SelectLines returns the whole lines first through last (in either
// order), one per line, trailing spaces removed.
func (h *History) SelectLines(first, last int) string {
	if last < first {
		first, last = last, first
	}
	first, last = max(first, 0), min(last, len(h.lines)-1)
	var out []string
	for i := first; i <= last; i++ {
		out = append(out, h.LineText(i))
	}
	return strings.Join(out, "\n")
}

// SelectRect returns the rectangle with corners a and b (inclusive, in
// any order): the same columns of every line between them.
func (h *History) SelectRect(a, b Pos) string {
	top, bottom := min(a.Line, b.Line), max(a.Line, b.Line)
	left, right := min(a.Col, b.Col), max(a.Col, b.Col)
	top, bottom = max(top, 0), min(bottom, len(h.lines)-1)
	var out []string
	for i := top; i <= bottom; i++ {
		out = append(out, h.span(i, left, right))
	}
	return strings.Join(out, "\n")
}

// SelectRange returns the text from a to b inclusive (in either order) as
// a terminal selects it: the rest of the first line, whole lines between,
// and the last line up to b.
func (h *History) SelectRange(a, b Pos) string {
	if b.before(a) {
		a, b = b, a
	}
	if a.Line == b.Line {
		return h.span(a.Line, a.Col, b.Col)
	}
	var out []string
	for i := max(a.Line, 0); i <= min(b.Line, len(h.lines)-1); i++ {
		switch i {
		case a.Line:
			out = append(out, h.span(i, a.Col, len(h.lines[i])))
		case b.Line:
			out = append(out, h.span(i, 0, b.Col))
		default:
			out = append(out, h.LineText(i))
		}
	}
	return strings.Join(out, "\n")
}

// span returns the text of columns left through right of line i; a left
// edge inside a wide character includes the whole character.
func (h *History) span(i, left, right int) string {
	cells := h.Line(i)
	left, right = max(left, 0), min(right, len(cells)-1)
	for left > 0 && left < len(cells) && cells[left].Width == 0 && cells[left].Content == "" {
		left--
	}
	if left > right {
		return ""
	}
	return LineText(cells[left : right+1])
}

// SearchAll returns every occurrence of query, in reading order.
func (h *History) SearchAll(query string) []Match {
	var all []Match
	for i := range h.lines {
		all = append(all, h.matches(i, query)...)
	}
	return all
}

// Search returns the first occurrence of query after from, or with
// backward the last one before it, and false when there is none. Search
// from Pos{Line: 0, Col: -1} forward, or from Pos{Line: Len()} backward,
// to include the whole history.
func (h *History) Search(query string, from Pos, backward bool) (Match, bool) {
	if backward {
		for i := min(from.Line, len(h.lines)-1); i >= 0; i-- {
			ms := h.matches(i, query)
			for j := len(ms) - 1; j >= 0; j-- {
				if ms[j].Start.before(from) {
					return ms[j], true
				}
			}
		}
		return Match{}, false
	}
	for i := max(from.Line, 0); i < len(h.lines); i++ {
		for _, m := range h.matches(i, query) {
			if from.before(m.Start) {
				return m, true
			}
		}
	}
	return Match{}, false
}

// matches returns the occurrences of query on line i, overlapping ones
// included, left to right.
func (h *History) matches(i int, query string) []Match {
	if query == "" {
		return nil
	}
	text, cols := h.text[i], h.colAt[i]
	var ms []Match
	for off := 0; off < len(text); {
		j := strings.Index(text[off:], query)
		if j < 0 {
			break
		}
		start := off + j
		end := start + len(query)
		ms = append(ms, Match{Start: Pos{i, cols[start]}, End: Pos{i, cols[end]}})
		_, size := utf8.DecodeRuneInString(text[start:])
		off = start + size
	}
	return ms
}
