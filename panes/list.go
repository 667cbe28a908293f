package panes

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/themes"
)

// listCursor is a list pane's selection and scroll, which the memory,
// vault and board panes share: sel is the selected row, top the first row
// shown.
type listCursor struct{ sel, top int }

// moveBy moves the selection by n rows among count.
func (c *listCursor) moveBy(n, count int) { c.sel = min(max(c.sel+n, 0), max(0, count-1)) }

// clampTo keeps the selection among count rows, after the list changed.
func (c *listCursor) clampTo(count int) { c.sel = min(c.sel, max(0, count-1)) }

// follow scrolls so that the selection is among the rows rows shown.
func (c *listCursor) follow(rows int) {
	if c.sel < c.top {
		c.top = c.sel
	} else if c.sel >= c.top+rows {
		c.top = c.sel - rows + 1
	}
	c.top = max(c.top, 0)
}

// drawBackground is a pane's first step of drawing: its rectangle (box,
// its tview.Box) filled with the theme's base colours, every cell, as
// the layout expects of a pane. It returns the rectangle; ok is false
// when nothing fits there.
func drawBackground(screen tcell.Screen, box *tview.Box, th *themes.Theme) (x, y, w, h int, ok bool) {
	x, y, w, h = box.GetInnerRect()
	if w <= 0 || h <= 0 {
		return x, y, w, h, false
	}
	fill(screen, x, y, w, h, th.Base.TCell())
	return x, y, w, h, true
}
