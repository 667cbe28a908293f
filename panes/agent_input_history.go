package panes

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// maxInputHistory is the most lines an agent pane's input history keeps.
const maxInputHistory = 500

// inputHistory is the agent pane's prompt history, as a shell keeps one:
// the lines sent from the pane, oldest first, and where Up and Down have
// got to. The line being typed when Up first leaves it is the draft,
// which Down past the newest line brings back.
type inputHistory struct {
	lines []string
	// pos is the index in lines of the line shown, len(lines) while the
	// draft is.
	pos   int
	draft string
}

// add records a line sent and goes back to an empty draft. A line equal
// to the newest one is kept once, as bash's ignoredups does.
func (h *inputHistory) add(line string) {
	if line != "" && (len(h.lines) == 0 || h.lines[len(h.lines)-1] != line) {
		h.lines = append(h.lines, line)
		if over := len(h.lines) - maxInputHistory; over > 0 {
			h.lines = append(h.lines[:0], h.lines[over:]...)
		}
	}
	h.pos, h.draft = len(h.lines), ""
}

// prev returns the line before the one shown, keeping current as the
// draft when it leaves it; false at the oldest line.
func (h *inputHistory) prev(current string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.lines) {
		h.draft = current
	}
	h.pos--
	return h.lines[h.pos], true
}

// next returns the line after the one shown, or the draft after the
// newest line; false while the draft is shown.
func (h *inputHistory) next() (string, bool) {
	if h.pos >= len(h.lines) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.lines) {
		return h.draft, true
	}
	return h.lines[h.pos], true
}

// historyUp shows the previous line sent in the input line. It does
// nothing while a permission dialog waits, whose keys come first.
func (p *AgentPane) historyUp() {
	if p.dialog.waiting() {
		return
	}
	if !p.onFirstLine() {
		p.moveCursor(tcell.KeyUp)
		return
	}
	// The draft keeps its paste placeholders, and the pastes stay held,
	// so that Down brings it back as it was.
	if line, ok := p.hist.prev(p.input.GetText()); ok {
		p.recall(line)
	}
}

// historyDown shows the next line sent, or after the newest the draft
// that was being typed.
func (p *AgentPane) historyDown() {
	if p.dialog.waiting() {
		return
	}
	if !p.onLastLine() {
		p.moveCursor(tcell.KeyDown)
		return
	}
	if line, ok := p.hist.next(); ok {
		p.recall(line)
	}
}

// recall puts line in the input line, cursor at its end, and clears the
// ref selection so that Enter sends the line.
func (p *AgentPane) recall(line string) {
	p.view.selected = -1
	p.input.SetText(line, true)
}

// moveCursor moves the prompt's cursor a line up or down.
func (p *AgentPane) moveCursor(k tcell.Key) {
	if h := p.input.InputHandler(); h != nil {
		h(tcell.NewEventKey(k, 0, 0), func(tview.Primitive) {})
	}
}

// seedHistory fills the history with the user turns the transcript shows,
// oldest first: those of a restored or resumed agent.
func (p *AgentPane) seedHistory() {
	for _, e := range p.view.entries {
		if e.kind == entryUser {
			p.hist.add(e.text)
		}
	}
}
