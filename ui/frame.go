package ui

import (
	"slices"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/uniseg"
)

// frameScreen is the screen the application draws on. tview draws every
// primitive in every frame, and a primitive may paint a cell twice (its
// background, then its text). tcell counts a cell whose content changed
// during a frame as changed even when it ends as it was, so every cell
// with text went to the terminal in every frame. frameScreen keeps the
// frame in a grid of its own and hands tcell, at Show, only the cells
// that differ from what it handed it last, once each: only what changed
// reaches the terminal.
//
// Its Clear does nothing: every frame paints every cell (the layout fills
// its rectangle, the bars their rows, a dialog draws over them), so the
// clearing tview does before each frame only made work, and without it a
// skipped frame (see capture) leaves the screen as it was instead of
// blank. It is used on the UI goroutine only.
type frameScreen struct {
	tcell.Screen
	w, h  int
	cells []frameCell // the frame being drawn
	given []frameCell // what tcell has
}

// frameCell is one cell of a frame.
type frameCell struct {
	r     rune
	comb  []rune
	style tcell.Style
}

// same reports whether c and o show the same.
func (c *frameCell) same(o *frameCell) bool {
	return c.r == o.r && c.style == o.style && slices.Equal(c.comb, o.comb)
}

// newFrameScreen returns s drawn through a frame grid.
func newFrameScreen(s tcell.Screen) *frameScreen { return &frameScreen{Screen: s} }

// Clear leaves the screen as it is; the next frame paints it.
func (*frameScreen) Clear() {}

// Size is the screen's size; a new size starts the grid afresh, and the
// next Show hands tcell every cell.
func (f *frameScreen) Size() (int, int) {
	w, h := f.Screen.Size()
	if w != f.w || h != f.h {
		f.w, f.h = w, h
		f.cells = make([]frameCell, w*h)
		f.given = make([]frameCell, w*h)
		for i := range f.given {
			f.given[i].r = -1 // differs from any cell drawn
		}
	}
	return w, h
}

// cell is the grid's cell at x, y, or nil outside the screen.
func (f *frameScreen) cell(x, y int) *frameCell {
	if f.cells == nil {
		f.Size()
	}
	if x < 0 || y < 0 || x >= f.w || y >= f.h {
		return nil
	}
	return &f.cells[y*f.w+x]
}

// SetContent draws a cell of the frame. A colour of ColorNone keeps the
// cell's, as tcell's does.
func (f *frameScreen) SetContent(x, y int, r rune, comb []rune, style tcell.Style) {
	c := f.cell(x, y)
	if c == nil {
		return
	}
	if fg, bg, _ := style.Decompose(); fg == tcell.ColorNone || bg == tcell.ColorNone {
		ofg, obg, _ := c.style.Decompose()
		if fg == tcell.ColorNone {
			style = style.Foreground(ofg)
		}
		if bg == tcell.ColorNone {
			style = style.Background(obg)
		}
	}
	c.r, c.style = r, style
	c.comb = nil
	if len(comb) > 0 {
		c.comb = slices.Clone(comb)
	}
}

// SetCell is SetContent.
func (f *frameScreen) SetCell(x, y int, style tcell.Style, ch ...rune) {
	if len(ch) > 0 {
		f.SetContent(x, y, ch[0], ch[1:], style)
	}
}

// Put draws the first grapheme cluster of str in a cell of the frame and
// returns the rest and the cluster's width, as tcell's does.
func (f *frameScreen) Put(x, y int, str string, style tcell.Style) (string, int) {
	g, rest, width, _ := uniseg.FirstGraphemeClusterInString(str, -1)
	if g == "" {
		return rest, 0
	}
	rs := []rune(g)
	f.SetContent(x, y, rs[0], rs[1:], style)
	return rest, width
}

// PutStrStyled draws str from x, y on, as far as the screen reaches.
func (f *frameScreen) PutStrStyled(x, y int, str string, style tcell.Style) {
	for str != "" && x < f.w {
		var width int
		str, width = f.Put(x, y, str, style)
		x += max(width, 1)
	}
}

// PutStr draws str in the default style.
func (f *frameScreen) PutStr(x, y int, str string) { f.PutStrStyled(x, y, str, tcell.StyleDefault) }

// Fill draws r in every cell.
func (f *frameScreen) Fill(r rune, style tcell.Style) {
	f.Size()
	for y := range f.h {
		for x := range f.w {
			f.SetContent(x, y, r, nil, style)
		}
	}
}

// GetContent reads a cell of the frame.
func (f *frameScreen) GetContent(x, y int) (rune, []rune, tcell.Style, int) {
	c := f.cell(x, y)
	if c == nil {
		return ' ', nil, tcell.StyleDefault, 1
	}
	r := c.r
	if r == 0 {
		r = ' '
	}
	return r, c.comb, c.style, max(runewidth.RuneWidth(r), 1)
}

// Get reads a cell of the frame.
func (f *frameScreen) Get(x, y int) (string, tcell.Style, int) {
	r, comb, style, width := f.GetContent(x, y)
	return string(append([]rune{r}, comb...)), style, width
}

// Show hands tcell the cells that changed and shows them.
func (f *frameScreen) Show() {
	f.give()
	f.Screen.Show()
}

// Sync hands tcell the cells that changed and repaints every cell.
func (f *frameScreen) Sync() {
	f.give()
	f.Screen.Sync()
}

// give hands tcell each cell that differs from what it has.
func (f *frameScreen) give() {
	for i := range f.cells {
		c := &f.cells[i]
		if c.same(&f.given[i]) {
			continue
		}
		r := c.r
		if r == 0 {
			r = ' '
		}
		f.Screen.SetContent(i%f.w, i/f.w, r, c.comb, c.style)
		f.given[i] = *c
	}
}
