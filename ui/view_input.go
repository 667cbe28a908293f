package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Focus gives the focus to the focused pane.
func (l *Layout) Focus(delegate func(p tview.Primitive)) {
	if l.focused != nil {
		delegate(l.focused.pane)
		return
	}
	l.Box.Focus(delegate)
}

// HasFocus reports whether the layout or one of its panes has the focus.
func (l *Layout) HasFocus() bool {
	for _, lf := range l.tree.leaves() {
		if lf.pane.HasFocus() {
			return true
		}
	}
	return l.Box.HasFocus()
}

// InputHandler passes keys to the focused pane.
func (l *Layout) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return l.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		if l.focused == nil {
			return
		}
		if h := l.focused.pane.InputHandler(); h != nil {
			h(event, setFocus)
		}
	})
}

// PasteHandler passes pasted text to the focused pane.
func (l *Layout) PasteHandler() func(text string, setFocus func(p tview.Primitive)) {
	return l.WrapPasteHandler(func(text string, setFocus func(p tview.Primitive)) {
		if l.focused == nil {
			return
		}
		if h := l.focused.pane.PasteHandler(); h != nil {
			h(text, setFocus)
		}
	})
}

// MouseHandler focuses the pane under a click and passes mouse events to
// the pane under the pointer.
func (l *Layout) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
	return l.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		if l.modal != nil && l.modal() {
			return true, nil // a dialog is in front: the panes take no clicks
		}
		x, y := event.Position()
		lf := l.at(x, y)
		if lf == nil {
			return false, nil
		}
		if action == tview.MouseLeftClick || action == tview.MouseLeftDown {
			if l.onClick != nil && lf != l.focused {
				l.onClick(lf)
			}
		}
		if h := lf.pane.MouseHandler(); h != nil {
			if consumed, capture := h(action, event, setFocus); consumed {
				return true, capture
			}
		}
		return true, nil
	})
}
