package panes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"
)

// The agent pane's prompt is a multi-line editor, as Claude Code's is:
// Enter sends, Alt-Enter, Shift-Enter and Ctrl-j insert a newline, a
// paste of more than pasteLines lines shows as one placeholder and is
// sent exactly, and Up and Down walk the history only from the first and
// the last line.

// promptRows is the most rows the prompt grows to.
const promptRows = 6

// pasteLines is the most lines a paste shows as itself.
const pasteLines = 3

// newlineKey reports whether ev inserts a newline in the prompt:
// Alt-Enter, Shift-Enter (from terminals that report it) or Ctrl-j. A
// legacy terminal's Alt-Enter, ESC CR, reaches tcell as Alt-Ctrl-m.
func newlineKey(ev *tcell.EventKey) bool {
	altCtrl := tcell.ModAlt | tcell.ModCtrl
	switch {
	case ev.Key() == tcell.KeyEnter && ev.Modifiers()&(tcell.ModAlt|tcell.ModShift) != 0:
		return true
	case ev.Key() == tcell.KeyCtrlJ:
		return true
	case ev.Key() == tcell.KeyRune && ev.Modifiers()&altCtrl == altCtrl && (ev.Rune() == 'm' || ev.Rune() == 'j'):
		return true
	}
	return false
}

// insertNewline puts a line break at the prompt's cursor.
func (p *AgentPane) insertNewline(setFocus func(tview.Primitive)) {
	if h := p.input.InputHandler(); h != nil {
		h(tcell.NewEventKey(tcell.KeyEnter, 0, 0), setFocus)
	}
}

// paste puts text at the prompt's cursor: line breaks as LF, and a text of
// more than pasteLines lines as a placeholder ("[Pasted text #1 +62
// lines]") that submit replaces with the text itself.
func (p *AgentPane) paste(text string, setFocus func(tview.Primitive)) {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1; n > pasteLines {
		if p.pasted == nil {
			p.pasted = map[string]string{}
		}
		token := fmt.Sprintf("[Pasted text #%d +%d lines]", len(p.pasted)+1, n)
		p.pasted[token] = text
		text = token
	}
	if h := p.input.PasteHandler(); h != nil {
		h(text, setFocus)
	}
}

// promptText is what the prompt holds, each paste placeholder replaced
// by the text pasted.
func (p *AgentPane) promptText() string {
	text := p.input.GetText()
	for token, pasted := range p.pasted {
		text = strings.ReplaceAll(text, token, pasted)
	}
	return text
}

// setPrompt replaces what the prompt holds, cursor at the end, and
// forgets the pastes it held.
func (p *AgentPane) setPrompt(text string) {
	p.input.SetText(text, true)
	p.pasted = nil
}

// onFirstLine and onLastLine report whether the prompt's cursor is on its
// first or its last line, where Up and Down walk the history. (With no
// selection, the selection's bounds are the cursor's offset.)
func (p *AgentPane) onFirstLine() bool {
	_, start, _ := p.input.GetSelection()
	return !strings.Contains(p.input.GetText()[:start], "\n")
}

func (p *AgentPane) onLastLine() bool {
	_, _, end := p.input.GetSelection()
	return !strings.Contains(p.input.GetText()[end:], "\n")
}

// promptLines is the number of rows the prompt's text takes at width w,
// its label included.
func (p *AgentPane) promptLines(w int) int {
	field := max(1, w-runewidth.StringWidth(p.input.GetLabel()))
	rows := 0
	for _, line := range strings.Split(p.input.GetText(), "\n") {
		rows += max(1, (runewidth.StringWidth(line)+field-1)/field)
	}
	return rows
}

// promptHeight is the rows the prompt is drawn in at width w: its text's,
// at most promptRows.
func (p *AgentPane) promptHeight(w int) int { return min(max(1, p.promptLines(w)), promptRows) }

// slashCommands are the /commands the prompt takes: the agent's own
// commands and skills, then the workstation's commands (see runCommand).
func (p *AgentPane) slashCommands() []string {
	out := p.agents.Commands()
	if p.env.Commands == nil {
		return out
	}
	for _, name := range p.env.Commands.CommandNames() {
		if !slices.Contains(out, "/"+name) {
			out = append(out, "/"+name)
		}
	}
	return out
}

// tab completes the /command being typed, or selects the next vault ref.
// One match completes it; several complete their common prefix and are
// named in the status bar.
func (p *AgentPane) tab() {
	text := p.input.GetText()
	if !strings.HasPrefix(text, "/") || strings.ContainsAny(text, " \n") || p.dialog.waiting() {
		p.view.selectRef(1)
		return
	}
	var matches []string
	for _, c := range p.slashCommands() {
		if strings.HasPrefix(c, text) {
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 0:
		p.env.Tell("no command begins " + text + " (/help lists them)")
	case 1:
		p.input.SetText(matches[0]+" ", true)
	default:
		prefix := matches[0]
		for _, m := range matches[1:] {
			for !strings.HasPrefix(m, prefix) {
				prefix = prefix[:len(prefix)-1]
			}
		}
		p.input.SetText(prefix, true)
		p.env.Tell(strings.Join(matches, "  "))
	}
}
