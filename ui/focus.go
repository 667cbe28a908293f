package ui

import (
	"fmt"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
)

// insert puts p, built from s, beside at in direction d.
// build builds the pane s names, first giving s its id when it has none:
// the next of the session, as tmux numbers its panes.
func (a *App) build(s pane.Spec) (pane.Pane, pane.Spec, error) {
	if s.ID == 0 {
		a.paneSeq++
		s.ID = a.paneSeq
	}
	p, err := a.cfg.Panes.New(s)
	return p, s, err
}

func (a *App) insert(at *leaf, d Dir, s pane.Spec, p pane.Pane) *leaf {
	lf := a.layout.tree.split(at, d, p)
	lf.spec = s
	a.layout.tree.zoomed = nil
	return lf
}

// changed tells the composition root the layout changed.
func (a *App) changed() {
	if a.cfg.OnLayoutChange != nil {
		a.cfg.OnLayoutChange()
	}
}

// leafOf returns the leaf holding p, in any window.
func (a *App) leafOf(p pane.Pane) *leaf {
	for _, lf := range a.allLeaves() {
		if lf.pane == p {
			return lf
		}
	}
	return nil
}

func (a *App) focus(lf *leaf) { a.focusLeaf(lf) }

// focusLeaf focuses lf, first showing its window.
func (a *App) focusLeaf(lf *leaf) {
	if lf == nil {
		return
	}
	if w := a.windowOf(lf); w != nil {
		a.switchTo(w)
	}
	if z := a.layout.tree.zoomed; z != nil && z != lf {
		a.layout.tree.zoomed = nil
	}
	a.layout.focused = lf
	a.focusSeq++
	lf.used = a.focusSeq
	a.lastOf[lf.pane.Kind()] = lf.pane
	a.tv.SetFocus(lf.pane)
	a.changed()
}

// askClose closes the focused pane after asking, as tmux's kill-pane
// does: "(y/n)", no by default, saying what running work it would end.
func (a *App) askClose() {
	lf := a.layout.focused
	if lf == nil {
		return
	}
	msg := fmt.Sprintf("Close pane %s (%s)?", a.paneName(lf), termsafe.OneLine(lf.pane.Title()))
	if w, ok := lf.pane.(pane.CloseWarner); ok {
		if warn := w.CloseWarning(); warn != "" {
			msg = warn + " Close it anyway?"
		}
	}
	a.confirm(msg, "Close", a.close)
}

// close removes the focused pane and focuses its neighbour; closing the
// last pane of a window closes the window, and closing the last window
// quits.
func (a *App) close() {
	lf := a.layout.focused
	if lf == nil {
		return
	}
	leaves := a.layout.tree.leaves()
	i := a.layout.number(lf)
	_ = lf.pane.Close()
	a.layout.tree.remove(lf)
	delete(a.lastOf, lf.pane.Kind())
	leaves = append(leaves[:i], leaves[i+1:]...)
	if len(leaves) == 0 {
		a.layout.focused = nil
		a.dropWindow(a.layout.window)
		return
	}
	if i >= len(leaves) {
		i = len(leaves) - 1
	}
	a.focusLeaf(leaves[i])
}
