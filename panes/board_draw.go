package panes

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// boardRow is the layout of the header and of every task row.
const boardRow = "%-5s %-8s %-12s %-5s %s"

// Draw paints the header, one row per task and the input line.
func (p *BoardPane) Draw(screen tcell.Screen) {
	p.DrawForSubclass(screen, p)
	x, y, w, h := p.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	th := p.env.Theme
	fill(screen, x, y, w, h, th.Base.TCell())
	Put(screen, x, y, w, fmt.Sprintf(boardRow, "id", "status", "owner", "age", "task"), th.Title.TCell())
	rows := h - 2
	if rows <= 0 {
		return
	}
	switch {
	case p.err != nil:
		Put(screen, x, y+1, w, "board: "+p.err.Error(), th.ChatToolError.TCell())
	case len(p.tasks) == 0:
		Put(screen, x, y+1, w, "No tasks yet: n adds one; agents add and claim theirs with the todo tool.", th.ChatSystem.TCell())
	}
	if p.sel < p.top {
		p.top = p.sel
	} else if p.sel >= p.top+rows {
		p.top = p.sel - rows + 1
	}
	for i := 0; i < rows && p.top+i < len(p.tasks); i++ {
		t := p.tasks[p.top+i]
		st := th.Base.TCell()
		switch {
		case p.top+i == p.sel:
			st = th.Selection.TCell()
			fill(screen, x, y+1+i, w, 1, st)
		case t.Status == vault.TaskDone:
			st = th.ChatSystem.TCell()
		}
		Put(screen, x, y+1+i, w, p.rowText(t), st)
	}
	if p.typing != inputNone {
		p.input.SetRect(x, y+h-1, w, 1)
		p.input.Draw(screen)
	}
}

// rowText is one task on one line: id, status, owner, age, and the title
// followed by the detail. Titles and details come from agents and are
// shown literally.
func (p *BoardPane) rowText(t vault.Task) string {
	owner := t.Owner
	if owner == "" {
		owner = "-"
	}
	text := termsafe.OneLine(t.Title)
	if t.Detail != "" {
		text += " — " + termsafe.OneLine(t.Detail)
	}
	return fmt.Sprintf(boardRow, t.ID, t.Status, owner, Age(p.env.now().Sub(t.Updated)), text)
}

// InputHandler edits the input line, or runs the pane's keys.
func (p *BoardPane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(tview.Primitive)) {
		if p.typing == inputNone {
			p.keys.Handle(ev)
			return
		}
		switch ev.Key() {
		case tcell.KeyEnter:
			p.finishInput(true)
		case tcell.KeyEscape:
			p.finishInput(false)
		default:
			if h := p.input.InputHandler(); h != nil {
				h(ev, setFocus)
			}
		}
	})
}
