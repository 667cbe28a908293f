package ui

import (
	"fmt"
	"strings"

	"github.com/rivo/tview"
)

// askQuit quits, first asking when an agent is working. Attached to a
// server, it asks whether to detach (the agents keep working) or to end
// the session.
func (a *App) askQuit() {
	busy := []string{}
	for _, ag := range a.cfg.Status().Agents {
		if ag.Busy {
			busy = append(busy, ag.Name)
		}
	}
	if a.cfg.Detach != nil {
		text := "Detach from this session (it keeps running; kws attach comes back) or end it?"
		if len(busy) > 0 {
			text = fmt.Sprintf("%s still working. Detach (they keep working; kws attach comes back) or end the session (their turns stop; the sessions are saved)?", strings.Join(busy, ", "))
		}
		a.choose(text, []string{"Detach", "End session", "Cancel"}, func(label string) {
			switch label {
			case "Detach":
				a.cfg.Detach()
			case "End session":
				a.Quit()
			}
		})
		return
	}
	if len(busy) == 0 {
		a.Quit()
		return
	}
	a.confirm(fmt.Sprintf("%s still working. Quit anyway? Their turns stop; the sessions are saved.", strings.Join(busy, ", ")), "Quit", a.Quit)
}

// detach detaches this client from the server's session (C-b d).
func (a *App) detach() {
	if a.cfg.Detach == nil {
		a.Notify("not attached to a kws server: nothing to detach from (C-b q quits)")
		return
	}
	a.cfg.Detach()
}

// confirm asks a yes/no question in a modal; the first button, yes, runs
// onYes.
func (a *App) confirm(text, yes string, onYes func()) {
	a.choose(text, []string{yes, "Cancel"}, func(label string) {
		if label == yes {
			onYes()
		}
	})
}

// choose asks a question in a modal with the buttons given, the first one
// focused, and calls done with the one pressed ("" for Escape).
func (a *App) choose(text string, buttons []string, done func(label string)) {
	th := a.cfg.Theme
	m := tview.NewModal().SetText(text).
		AddButtons(buttons).
		SetDoneFunc(func(_ int, label string) {
			a.closeDialog(pageQuit)
			done(label)
		})
	m.SetBackgroundColor(th.Dialog.Bg)
	m.SetTextColor(th.Dialog.Fg)
	m.SetButtonStyle(th.DialogButton.TCell()).SetButtonActivatedStyle(th.DialogButtonFocused.TCell())
	m.SetBorderStyle(th.BorderFocused.TCell())
	a.pages.AddPage(pageQuit, m, true, true)
	a.tv.SetFocus(m)
}
