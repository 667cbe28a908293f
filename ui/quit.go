package ui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/pane"
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
			w := busyWords(busy)
			text = fmt.Sprintf("%s. Detach (%s working; kws attach comes back) or end the session (%s)?", w.working, w.keeps, w.stops)
		}
		// Detach, the safe choice, is focused; d presses it, e ends the
		// session, n cancels.
		keys := map[rune]string{'d': "Detach", 'e': "End session", 'n': "Cancel"}
		a.choose(text, "(d detach · e end · n cancel)", []string{"Detach", "End session", "Cancel"}, 0, keys, func(label string) {
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
	w := busyWords(busy)
	a.confirm(fmt.Sprintf("%s. Quit anyway? %s.", w.working, capitalize(w.stops)), "Quit", a.Quit)
}

// busyPhrases are the quit dialogs' words about the agents still working,
// in the singular for one agent and the plural for more.
type busyPhrases struct {
	working string // "agent-5 is still working"
	keeps   string // "it keeps"
	stops   string // "its turn stops; its session is saved"
}

// busyWords phrases the busy agents' names for the quit dialogs:
// "agent-5 is still working", "agent-1 and agent-2 are still working",
// "agent-1, agent-2 and agent-3 are still working".
func busyWords(busy []string) busyPhrases {
	if len(busy) == 1 {
		return busyPhrases{busy[0] + " is still working", "it keeps", "its turn stops; its session is saved"}
	}
	names := strings.Join(busy[:len(busy)-1], ", ") + " and " + busy[len(busy)-1]
	return busyPhrases{names + " are still working", "they keep", "their turns stop; their sessions are saved"}
}

// capitalize upper-cases s's first letter.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// detach detaches this client from the server's session (C-b d).
func (a *App) detach() {
	if a.cfg.Detach == nil {
		a.Notify("not attached to a kws server: nothing to detach from (" + a.prefixName() + " " + a.actionKey("quit") + " quits)")
		return
	}
	a.cfg.Detach()
}

// confirm asks a yes/no question in a modal, as tmux does: "(y/n)", with
// Cancel, the safe answer, focused. y or the yes button runs onYes; n,
// Escape and Cancel do nothing.
func (a *App) confirm(text, yes string, onYes func()) {
	a.choose(text, "(y/n)", []string{yes, "Cancel"}, 1, map[rune]string{'y': yes, 'n': "Cancel"}, func(label string) {
		if label == yes {
			onYes()
		}
	})
}

// choose asks a question in a modal with the buttons given, buttons[focus]
// focused, and calls done with the one pressed ("" for Escape). A key of
// keys presses the button it names.
func (a *App) choose(text, legend string, buttons []string, focus int, keys map[rune]string, done func(label string)) {
	th := a.cfg.Theme
	m := &wordModal{Modal: tview.NewModal(), text: text, legend: legend, buttons: buttons}
	m.AddButtons(buttons).
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

// wordModal is a tview.Modal whose text breaks only at spaces, so that a
// path stays whole (tview breaks after a slash), and whose key legend,
// "(y/n)", ends the last line or, when it does not fit there, takes a line
// of its own. Its width is the Modal's: a third of the screen, or its
// buttons' if wider.
type wordModal struct {
	*tview.Modal
	text, legend string
	buttons      []string
}

// Draw wraps the text for the screen's width and draws the modal.
func (m *wordModal) Draw(screen tcell.Screen) {
	sw, _ := screen.Size()
	w := -2
	for _, b := range m.buttons {
		w += runewidth.StringWidth(b) + 6
	}
	w = max(w, sw/3)
	var lines []string
	for _, para := range strings.Split(m.text, "\n") {
		lines = append(lines, pane.WrapWords(para, w)...)
	}
	if last := len(lines) - 1; runewidth.StringWidth(lines[last])+1+runewidth.StringWidth(m.legend) <= w {
		lines[last] += " " + m.legend
	} else {
		lines = append(lines, pane.FitWords(m.legend, w))
	}
	// The text may name panes and jobs (a process title is anyone's to
	// set): tview must not read tags in it.
	m.SetText(tview.Escape(strings.Join(lines, "\n")))
	m.Modal.Draw(screen)
}
