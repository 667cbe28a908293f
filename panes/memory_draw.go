package panes

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/internal/human"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
)

// reembedFailureLines bounds the bottom lines a failed re-embedding's
// error takes.
const reembedFailureLines = 4

// keepEnds returns at most n of lines: the first (what stopped, and
// where) and the last ones (the error's innermost reason); one line only,
// the last.
func keepEnds(lines []string, n int) []string {
	switch {
	case len(lines) <= n:
		return lines
	case n == 1:
		return lines[len(lines)-1:]
	}
	return append(lines[:1:1], lines[len(lines)-(n-1):]...)
}

// Draw paints the header, the rows and the bottom line (search, editor,
// or the re-embedding's progress); a failed re-embedding's error takes a
// few bottom lines, so that its reason, at the end, shows.
func (p *MemoryPane) Draw(screen tcell.Screen) {
	th := p.env.Theme
	x, y, w, h, ok := drawBackground(screen, p.Box, th)
	if !ok {
		return
	}
	pane.Put(screen, x, y, w, fmt.Sprintf("%-10s %-8s %-5s %s", "kind", "scope", "age", "text"), th.Title.TCell())
	var failure []string
	if p.editing == nil && !p.searching && p.query == "" && p.reembed.Err != nil {
		// The error may quote an embedding server's answer.
		failure = keepEnds(pane.WrapWords(termsafe.OneLine(p.reembed.String()), w), min(reembedFailureLines, max(1, h-2)))
	}
	rows := h - 1 - max(1, len(failure))
	if rows <= 0 {
		return
	}
	switch {
	case p.err != nil:
		pane.Put(screen, x, y+1, w, "memory: "+p.err.Error(), th.ChatToolError.TCell())
	case len(p.rows) == 0 && p.candidates:
		putProse(screen, x, y+1, w, rows, "No candidates wait for approval.", th.ChatSystem.TCell())
	case len(p.rows) == 0:
		putProse(screen, x, y+1, w, rows, "No memories yet: say \"remember …\" to an agent, or kws memory add.", th.ChatSystem.TCell())
	}
	p.follow(rows)
	for i := 0; i < rows && p.top+i < len(p.rows); i++ {
		st := th.Base.TCell()
		if p.top+i == p.sel {
			st = th.Selection.TCell()
			fill(screen, x, y+1+i, w, 1, st)
		}
		pane.Put(screen, x, y+1+i, w, p.rowText(p.rows[p.top+i]), st)
	}
	bottom := y + h - 1
	switch {
	case p.editing != nil:
		p.editor.SetRect(x, bottom, w, 1)
		p.editor.Draw(screen)
	case p.searching || p.query != "":
		pane.Put(screen, x, bottom, w, "/"+p.query, th.HintKey.TCell())
	case len(failure) > 0:
		for i, l := range failure {
			pane.Put(screen, x, y+h-len(failure)+i, w, l, th.ChatToolError.TCell())
		}
	case p.reembed.Running:
		pane.Put(screen, x, bottom, w, termsafe.OneLine(p.reembed.String()), th.ChatSystem.TCell())
	}
}

// rowText is one row: kind, scope, age and the text on one line.
func (p *MemoryPane) rowText(r memRow) string {
	m, kind := r.mem, r.mem.Kind
	if r.cand != nil {
		m = memory.Memory{Text: r.cand.Candidate.Text, Scope: r.cand.Scope, Created: r.cand.Created}
		kind = r.cand.Candidate.Kind + "?"
		m.Updated = r.cand.Created
	}
	return fmt.Sprintf("%-10s %-8s %-5s %s", kind, memory.ScopeLabel(m.Scope), human.Age(p.env.Time().Sub(m.Updated)), termsafe.OneLine(m.Text))
}

// InputHandler edits, searches as you type, or runs the pane's keys.
func (p *MemoryPane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(tview.Primitive)) {
		switch {
		case p.editing != nil:
			switch ev.Key() {
			case tcell.KeyEnter:
				p.finishEdit(true)
			case tcell.KeyEscape:
				p.finishEdit(false)
			default:
				if h := p.editor.InputHandler(); h != nil {
					h(ev, setFocus)
				}
			}
		case p.searching:
			p.searchKey(ev)
		default:
			p.keys.Handle(ev)
		}
	})
}

// searchKey edits the query; every change searches again.
func (p *MemoryPane) searchKey(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyEnter:
		p.searching = false
		return
	case tcell.KeyEscape:
		p.searching, p.query = false, ""
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
		}
	case tcell.KeyRune:
		p.query += string(ev.Rune())
	default:
		return
	}
	p.candidates, p.sel, p.top = false, 0, 0
	p.Refresh()
}
