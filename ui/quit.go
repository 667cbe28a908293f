package ui

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/gdamore/tcell/v2"
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
		// Detach, the safe choice, is focused; d presses it. End
		// session has no key: it is a button away, as tmux's
		// kill-session is a command away.
		keys := map[rune]string{'d': "Detach", 'n': "Cancel"}
		a.choose(text+" (d/n)", []string{"Detach", "End session", "Cancel"}, 0, keys, func(label string) {
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

// confirm asks a yes/no question in a modal, as tmux does: "(y/n)", with
// Cancel, the safe answer, focused. y or the yes button runs onYes; n,
// Escape and Cancel do nothing.
func (a *App) confirm(text, yes string, onYes func()) {
	a.choose(text+" (y/n)", []string{yes, "Cancel"}, 1, map[rune]string{'y': yes, 'n': "Cancel"}, func(label string) {
		if label == yes {
			onYes()
		}
	})
}

// choose asks a question in a modal with the buttons given, buttons[focus]
// focused, and calls done with the one pressed ("" for Escape). A key of
// keys presses the button it names.
func (a *App) choose(text string, buttons []string, focus int, keys map[rune]string, done func(label string)) {
	th := a.cfg.Theme
	m := tview.NewModal().SetText(text).
		AddButtons(buttons).
		SetDoneFunc(func(_ int, label string) {
			a.closeDialog(pageQuit)
			done(label)
		})
	m.SetFocus(focus)
	m.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() != tcell.KeyRune || ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) != 0 {
			return ev
		}
		if label, ok := keys[unicode.ToLower(ev.Rune())]; ok {
			a.closeDialog(pageQuit)
			done(label)
		}
		return nil
	})
	m.SetBackgroundColor(th.Dialog.Bg)
	m.SetTextColor(th.Dialog.Fg)
	m.SetButtonStyle(th.DialogButton.TCell()).SetButtonActivatedStyle(th.DialogButtonFocused.TCell())
	m.SetBorderStyle(th.BorderFocused.TCell())
	a.pages.AddPage(pageQuit, m, true, true)
	a.tv.SetFocus(m)
}
