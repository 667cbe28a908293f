package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"
)

// palette asks for a command by name, as tmux's command prompt does. Tab
// completes the command or its argument and, when several candidates
// remain, lists them above the line as bash does; it never closes the
// palette. Enter runs the command, Esc closes the palette.
func (a *App) palette() {
	th := a.cfg.Theme
	in := tview.NewInputField().SetLabel(": ")
	in.SetFieldStyle(th.Dialog.TCell()).SetLabelStyle(th.HintKey.TCell())
	in.SetBackgroundColor(th.Dialog.Bg)
	list := tview.NewTextView().SetDynamicColors(false).SetRegions(false).SetWrap(false)
	list.SetTextStyle(th.Dialog.TCell())
	list.SetBackgroundColor(th.Dialog.Bg)
	bar := tview.NewFlex().SetDirection(tview.FlexRow).AddItem(nil, 0, 1, false).AddItem(list, 0, 0, false).
		AddItem(in, 1, 0, true).AddItem(nil, 2, 0, false)
	show := func(text string, rows int) {
		list.SetText(text)
		bar.ResizeItem(list, rows, 0)
	}
	in.SetChangedFunc(func(string) { show("", 0) })
	in.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		switch ev.Key() {
		case tcell.KeyTab:
			a.complete(in, show)
			return nil
		case tcell.KeyBacktab:
			return nil
		}
		return ev
	})
	in.SetDoneFunc(func(key tcell.Key) {
		text := strings.TrimSpace(in.GetText())
		a.closeDialog(pagePalette)
		if key == tcell.KeyEnter && text != "" {
			a.Command(text)
		}
	})
	a.pages.AddPage(pagePalette, bar, true, true)
	a.tv.SetFocus(in)
}

// complete is Tab in the palette: a single candidate replaces the text;
// several extend it by what they share and are listed through show; none
// is said in the status bar.
func (a *App) complete(in *tview.InputField, show func(text string, rows int)) {
	text := in.GetText()
	cands := a.completions(text)
	switch {
	case len(cands) == 0:
		a.Notify(a.noCompletion(text))
	case len(cands) == 1:
		in.SetText(cands[0])
	default:
		if p := commonPrefix(cands); len(p) > len(text) {
			in.SetText(p)
		}
		_, _, w, h := a.pages.GetRect()
		// The list may take the rows above the palette's line but one.
		listing, rows := columns(cands, w, h-4)
		show(listing, rows)
	}
}

// columns lays out the candidates' last words in columns down then
// across, as bash lists completions, in at most maxRows rows of w
// columns; what does not fit is counted on the last row. It returns the
// text and its rows.
func columns(cands []string, w, maxRows int) (string, int) {
	words := make([]string, len(cands))
	width := 0
	for i, c := range cands {
		f := strings.Fields(c)
		words[i] = f[len(f)-1]
		width = max(width, runewidth.StringWidth(words[i]))
	}
	cols := max(1, w/(width+2))
	// full is how many rows of words there are; a list taller than
	// maxRows shows maxRows-1 of them and says how many more there are.
	full := (len(words) + cols - 1) / cols
	rows, shown := full, len(words)
	if maxRows = max(maxRows, 2); full > maxRows {
		rows = maxRows - 1
		shown = rows * cols
	}
	var lines []string
	for r := range rows {
		var b strings.Builder
		for c := range cols {
			// Down then across: column c holds words c*rows to c*rows+rows-1.
			if i := c*rows + r; i < shown {
				b.WriteString(runewidth.FillRight(words[i], width+2))
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	if shown < len(words) {
		lines = append(lines, fmt.Sprintf("… %d more: type to narrow", len(words)-shown))
	}
	return strings.Join(lines, "\n"), len(lines)
}

// commonPrefix returns the longest prefix every string of ss shares.
func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	for !utf8.ValidString(p) {
		p = p[:len(p)-1]
	}
	return p
}
