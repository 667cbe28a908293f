package ui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/termsafe"
)

// chooseTree shows every window and, under each, its panes, as tmux's
// choose-tree does: Up and Down (or k and j) move, Enter shows the window
// or focuses the pane chosen, a digit shows that window, Esc or q closes.
// The focused pane is chosen at first; a pane waiting for the user is
// marked ‼.
func (a *App) chooseTree() {
	th := a.cfg.Theme
	list := tview.NewList().ShowSecondaryText(false).SetHighlightFullLine(true).SetUseStyleTags(false, false)
	list.SetMainTextStyle(th.Dialog.TCell()).SetSelectedStyle(th.DialogButtonFocused.TCell())
	list.SetBackgroundColor(th.Dialog.Bg)
	current, width := 0, 0
	add := func(text string, run func()) {
		width = max(width, len([]rune(text)))
		list.AddItem(text, "", 0, func() {
			a.closeDialog(pageTree)
			run()
		})
	}
	for i, w := range a.windows {
		leaves := w.tree.leaves()
		flags := ""
		if w == a.layout.window {
			flags += "*"
		}
		if w.waiting() {
			flags += " ‼"
		}
		panes := fmt.Sprintf("%d panes", len(leaves))
		if len(leaves) == 1 {
			panes = "1 pane"
		}
		add(fmt.Sprintf("%d: %s%s (%s)", i, termsafe.OneLine(w.displayName()), flags, panes), func() { a.selectWindow(w) })
		for j, lf := range leaves {
			mark := ""
			if needsYou(lf.pane) {
				mark = "‼ "
			}
			add(fmt.Sprintf("    %d.%d %s%s", i, j, mark, termsafe.OneLine(lf.pane.Title())), func() { a.focusLeaf(lf) })
			if lf == a.layout.focused {
				current = list.GetItemCount() - 1
			}
		}
	}
	list.SetCurrentItem(current)
	title := " windows (Enter shows · Esc closes) "
	list.SetBorder(true).SetTitle(title).SetBorderStyle(th.BorderFocused.TCell()).SetTitleColor(th.TitleFocused.Fg)
	list.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyEscape {
			a.closeDialog(pageTree)
			return nil
		}
		if ev.Key() != tcell.KeyRune {
			return ev
		}
		switch r := ev.Rune(); {
		case r == 'q':
			a.closeDialog(pageTree)
		case r == 'j':
			return tcell.NewEventKey(tcell.KeyDown, 0, 0)
		case r == 'k':
			return tcell.NewEventKey(tcell.KeyUp, 0, 0)
		case r >= '0' && r <= '9':
			if w, err := a.windowAt(int(r - '0')); err == nil {
				a.closeDialog(pageTree)
				a.selectWindow(w)
			}
		}
		return nil
	})
	// The list in the middle of the screen, as wide as its longest line.
	width = max(width+4, len(title)+2)
	height := list.GetItemCount() + 2
	box := tview.NewFlex().
		AddItem(nil, 0, 1, false).
		AddItem(tview.NewFlex().SetDirection(tview.FlexRow).
			AddItem(nil, 0, 1, false).AddItem(list, height, 0, true).AddItem(nil, 0, 1, false), width, 0, true).
		AddItem(nil, 0, 1, false)
	a.pages.AddPage(pageTree, box, true, true)
	a.tv.SetFocus(list)
}
