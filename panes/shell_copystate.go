package panes

import (
	"sort"

	"github.com/kwsdev/kws/pty"
)

// selKind is what a copy-mode selection takes: nothing, the characters
// from the anchor to the cursor, or whole lines.
type selKind int

const (
	selNone selKind = iota
	selChars
	selLines
)

// copyMode is the state of a shell pane's copy mode: a frozen history, a
// cursor in it, the first line shown, a selection and a search.
type copyMode struct {
	hist       *pty.History
	cur        pty.Pos     // the copy cursor
	anchor     pty.Pos     // where the selection started
	sel        selKind     // the selection in progress
	top        int         // the history line on the pane's first row
	rows, cols int         // the pane's size when last drawn
	query      string      // the last search
	backward   bool        // whether the last search went backward
	matches    []pty.Match // every match of query, in reading order
	typing     bool        // the search line is open
	input      []rune      // the search line's text
	inputBack  bool        // the search line searches backward
	byWheel    bool        // the mouse wheel opened it: wheeling to the bottom leaves
	byClick    bool        // a click opened it: a click that selects nothing leaves
	dragging   bool        // the left button is down on it, selecting
}

// hitsOn returns the search matches on line.
func (c *copyMode) hitsOn(line int) []pty.Match {
	i := sort.Search(len(c.matches), func(i int) bool { return c.matches[i].Start.Line >= line })
	j := i
	for j < len(c.matches) && c.matches[j].Start.Line == line {
		j++
	}
	return c.matches[i:j]
}

// clamp keeps the cursor inside the history and the pane, and scrolls so
// that the cursor line is shown.
func (c *copyMode) clamp() {
	c.cur.Line = max(0, min(c.cur.Line, c.hist.Len()-1))
	c.cur.Col = max(0, min(c.cur.Col, c.cols-1))
	if c.placeholder(c.cur) {
		c.cur.Col--
	}
	if c.cur.Line < c.top {
		c.top = c.cur.Line
	}
	if c.cur.Line >= c.top+c.rows {
		c.top = c.cur.Line - c.rows + 1
	}
	c.top = max(0, min(c.top, c.hist.Len()-c.rows))
}

// move moves the cursor by lines and columns; moving right steps over
// the right half of a wide character.
func (c *copyMode) move(lines, cols int) {
	pos := pty.Pos{Line: c.cur.Line + lines, Col: c.cur.Col + cols}
	if cols > 0 && c.placeholder(pos) {
		pos.Col++
	}
	c.goTo(pos)
}

// placeholder reports whether pos is the right half of a wide character,
// where the cursor cannot rest.
func (c *copyMode) placeholder(pos pty.Pos) bool {
	cells := c.hist.Line(pos.Line)
	return pos.Col > 0 && pos.Col < len(cells) && cells[pos.Col].Width == 0 && cells[pos.Col].Content == ""
}

// scroll moves the view and the cursor by n lines.
func (c *copyMode) scroll(n int) {
	c.top += n
	c.move(n, 0)
}

// atBottom reports whether the view shows the newest lines.
func (c *copyMode) atBottom() bool { return c.top >= c.hist.Len()-c.rows }

// goTo puts the cursor at pos.
func (c *copyMode) goTo(pos pty.Pos) {
	c.cur = pos
	c.clamp()
}

// toPrompt moves the cursor to the start of the line find returns from
// the cursor's line (History.PrevPrompt or NextPrompt), as tmux's
// previous-prompt and next-prompt do; without one it stays.
func (c *copyMode) toPrompt(find func(line int) (int, bool)) {
	if line, ok := find(c.cur.Line); ok {
		c.goTo(pty.Pos{Line: line})
	}
}

// lineEnd puts the cursor on the last non-blank cell of its line.
func (c *copyMode) lineEnd() {
	cells := c.hist.Line(c.cur.Line)
	end := len(cells) - 1
	for end > 0 && (cells[end].Content == " " || cells[end].Content == "") {
		end--
	}
	c.goTo(pty.Pos{Line: c.cur.Line, Col: end})
}

// openSearch opens the search line.
func (c *copyMode) openSearch(backward bool) {
	c.typing, c.input, c.inputBack = true, nil, backward
}

// toggle starts a selection of kind at the cursor, or ends the one in
// progress.
func (c *copyMode) toggle(kind selKind) {
	if c.sel == kind {
		c.sel = selNone
		return
	}
	if c.sel == selNone {
		c.anchor = c.cur
	}
	c.sel = kind
}

// selected reports whether pos lies in the selection.
func (c *copyMode) selected(pos pty.Pos) bool {
	a, b := c.anchor, c.cur
	if b.Line < a.Line || b.Line == a.Line && b.Col < a.Col {
		a, b = b, a
	}
	switch {
	case c.sel == selNone || pos.Line < a.Line || pos.Line > b.Line:
		return false
	case c.sel == selLines:
		return true
	}
	return (pos.Line > a.Line || pos.Col >= a.Col) && (pos.Line < b.Line || pos.Col <= b.Col)
}

// selection returns the selected text.
func (c *copyMode) selection() string {
	if c.sel == selLines {
		return c.hist.SelectLines(c.anchor.Line, c.cur.Line)
	}
	return c.hist.SelectRange(c.anchor, c.cur)
}

// keepText returns what SendToVault keeps in copy mode: the selection, or
// the lines shown when nothing is selected.
func (c *copyMode) keepText() (kind, text string) {
	if c.sel != selNone {
		return "shell:selection", c.selection()
	}
	last := min(c.top+c.rows, c.hist.Len()) - 1
	return "shell:screen", c.hist.SelectLines(c.top, last)
}
