package ui

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// leaf is one pane in the layout with the frame drawn around it.
type leaf struct {
	node *node
	pane pane.Pane
	spec pane.Spec // what pane was built from
	x, y int
	w, h int
	// used orders focus: the leaf focused most recently has the highest.
	used uint64
}

// title is the pane's title: the one select-pane -T gave it, else the
// pane's own.
func (lf *leaf) title() string {
	if lf.spec.Title != "" {
		return lf.spec.Title
	}
	return lf.pane.Title()
}

// Layout is the primitive that draws the tree: every visible pane inside
// its frame, numbered, the focused one in the theme's focused border.
type Layout struct {
	*tview.Box
	// window is the window on the screen; its tree and focus are the
	// layout's.
	*window
	theme *themes.Theme
	// onClick is called when a click lands on an unfocused pane.
	onClick func(lf *leaf)
	// modal reports whether a dialog is in front of the layout.
	modal func() bool
	// screen is the screen the layout drew on last (capture-pane reads
	// it).
	screen tcell.Screen
}

func newLayout(th *themes.Theme, w *window) *Layout {
	return &Layout{Box: tview.NewBox(), window: w, theme: th}
}

// Draw lays the tree out in the layout's rectangle and draws the panes.
func (l *Layout) Draw(screen tcell.Screen) {
	l.screen = screen
	// Only a focused shell pane shows the terminal's cursor, and only when
	// its program wants it; every frame starts with it hidden.
	screen.HideCursor()
	x, y, w, h := l.GetRect()
	// The leaves' frames and panes cover the rectangle, each painting
	// every cell of its own; only what no leaf covers is filled here.
	for _, lf := range l.tree.leaves() {
		lf.w, lf.h = 0, 0
	}
	if l.tree.root == nil {
		l.fill(screen, x, y, w, h)
		return
	}
	if z := l.tree.zoomed; z != nil {
		l.place(z, x, y, w, h)
		l.drawLeaf(screen, z)
		return
	}
	l.arrange(l.tree.root, x, y, w, h)
	for _, lf := range l.tree.leaves() {
		l.drawLeaf(screen, lf)
	}
}

// fill paints a rectangle in the theme's base colours.
func (l *Layout) fill(screen tcell.Screen, x, y, w, h int) {
	base := l.theme.Base.TCell()
	for row := y; row < y+h; row++ {
		for col := x; col < x+w; col++ {
			screen.SetContent(col, row, ' ', nil, base)
		}
	}
}

// arrange gives each node its share of the rectangle.
func (l *Layout) arrange(n *node, x, y, w, h int) {
	if n == nil {
		return
	}
	if n.leaf != nil {
		l.place(n.leaf, x, y, w, h)
		return
	}
	extent := w
	if n.dir == TopBottom {
		extent = h
	}
	n.size = extent
	total := 0.0
	for _, wt := range n.weights {
		total += wt
	}
	pos, acc := 0, 0.0
	for i, c := range n.children {
		acc += n.weights[i]
		end := int(float64(extent)*acc/total + 0.5)
		if i == len(n.children)-1 {
			end = extent
		}
		if n.dir == LeftRight {
			l.arrange(c, x+pos, y, end-pos, h)
		} else {
			l.arrange(c, x, y+pos, w, end-pos)
		}
		pos = end
	}
}

func (l *Layout) place(lf *leaf, x, y, w, h int) {
	lf.x, lf.y, lf.w, lf.h = x, y, w, h
}

// drawLeaf draws the frame (number, title, focus) and the pane inside it.
func (l *Layout) drawLeaf(screen tcell.Screen, lf *leaf) {
	if lf.w < 3 || lf.h < 3 {
		l.fill(screen, lf.x, lf.y, lf.w, lf.h)
		return
	}
	focused := lf == l.focused
	border, title := l.theme.Border, l.theme.Title
	switch {
	case focused:
		border, title = l.theme.BorderFocused, l.theme.TitleFocused
	case needsYou(lf.pane):
		// A pane waiting for the user stands out until it is answered.
		border = l.theme.StatusAgentWaiting
		title = l.theme.StatusAgentWaiting
	}
	bg := l.theme.Base.Bg
	// A title too long for the frame loses whole words, never half of
	// one (a state "offline" is not shown as "offl…").
	drawFrame(screen, lf.x, lf.y, lf.w, lf.h, border.TCell().Background(bg),
		" "+pane.FitWords(l.label(lf), lf.w-4)+" ", tcell.StyleDefault.Foreground(title.Fg).Background(bg))
	lf.pane.SetRect(lf.x+1, lf.y+1, lf.w-2, lf.h-2)
	lf.pane.Draw(screen)
}

// drawFrame draws a single-line border around the w×h rectangle at x, y
// with title on its top edge, from the left; it paints the border's cells
// only, the pane inside paints the rest.
func drawFrame(screen tcell.Screen, x, y, w, h int, border tcell.Style, title string, titleStyle tcell.Style) {
	pane.Border(screen, x, y, w, h, border, false)
	pane.Put(screen, x+1, y, w-2, title, titleStyle)
}

// needsYou reports whether p waits for the user.
func needsYou(p pane.Pane) bool {
	w, ok := p.(pane.Waiter)
	return ok && w.NeedsYou()
}

// label is the frame title: the pane number, a mark when it waits for the
// user, its title, and a zoom mark.
func (l *Layout) label(lf *leaf) string {
	s := strconv.Itoa(l.number(lf)) + " " + lf.title()
	if needsYou(lf.pane) {
		s = strconv.Itoa(l.number(lf)) + " ‼ " + lf.title()
	}
	if l.tree.zoomed == lf {
		s += " [Z]"
	}
	return s
}

// number is the leaf's pane number, from 0 in reading order as in tmux.
func (l *Layout) number(lf *leaf) int {
	for i, x := range l.tree.leaves() {
		if x == lf {
			return i
		}
	}
	return -1
}

// at returns the visible leaf containing screen position x, y.
func (l *Layout) at(x, y int) *leaf {
	for _, lf := range l.tree.leaves() {
		if lf.w > 0 && x >= lf.x && x < lf.x+lf.w && y >= lf.y && y < lf.y+lf.h {
			return lf
		}
	}
	return nil
}

// neighbour returns the leaf next to from in direction (dx, dy); when
// several touch that side it picks, as tmux does, the one focused most
// recently, then the one nearest from's centre.
func (l *Layout) neighbour(from *leaf, dx, dy int) *leaf {
	var best *leaf
	bestDist := 1 << 30
	cx, cy := from.x+from.w/2, from.y+from.h/2
	for _, lf := range l.tree.leaves() {
		if lf == from || lf.w == 0 {
			continue
		}
		var touching bool
		var dist int
		switch {
		case dx > 0:
			touching = lf.x == from.x+from.w && overlaps(lf.y, lf.h, from.y, from.h)
			dist = abs(lf.y + lf.h/2 - cy)
		case dx < 0:
			touching = lf.x+lf.w == from.x && overlaps(lf.y, lf.h, from.y, from.h)
			dist = abs(lf.y + lf.h/2 - cy)
		case dy > 0:
			touching = lf.y == from.y+from.h && overlaps(lf.x, lf.w, from.x, from.w)
			dist = abs(lf.x + lf.w/2 - cx)
		case dy < 0:
			touching = lf.y+lf.h == from.y && overlaps(lf.x, lf.w, from.x, from.w)
			dist = abs(lf.x + lf.w/2 - cx)
		}
		if touching && (best == nil || lf.used > best.used || lf.used == best.used && dist < bestDist) {
			best, bestDist = lf, dist
		}
	}
	return best
}

func overlaps(a, alen, b, blen int) bool { return a < b+blen && b < a+alen }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
