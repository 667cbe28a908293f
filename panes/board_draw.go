package panes

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/internal/human"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// boardRow is the layout of the header and of every task row.
const boardRow = "%-5s %-8s %-12s %-5s %s"

// Draw paints the header, the rows that fit and the input line.
func (p *BoardPane) Draw(screen tcell.Screen) {
	th := p.env.Theme
	x, y, w, h, ok := drawBackground(screen, p.Box, th)
	if !ok {
		return
	}
	pane.Put(screen, x, y, w, fmt.Sprintf(boardRow, "id", "status", "owner", "age", "task"), th.Title.TCell())
	rows := h - 2
	if rows <= 0 {
		return
	}
	if p.teamStale {
		p.reload(false)
	}
	lines := p.lines()
	p.follow(rows)
	// The headings and hints just above the selection stay in sight when
	// there is room, though they cannot be selected.
	for p.top > 0 && lines[p.top-1].kind == lineNote && p.sel-(p.top-1) < rows {
		p.top--
	}
	p.top = max(0, min(p.top, len(lines)-rows))
	for i := 0; i < rows && p.top+i < len(lines); i++ {
		l := lines[p.top+i]
		text, st := p.lineText(l)
		if p.top+i == p.sel && l.kind != lineNote {
			st = th.Selection.TCell()
			fill(screen, x, y+1+i, w, 1, st)
		}
		pane.Put(screen, x, y+1+i, w, text, st)
	}
	if p.typing != inputNone {
		p.input.SetRect(x, y+h-1, w, 1)
		p.input.Draw(screen)
	}
}

// lineText returns a row's text and style.
func (p *BoardPane) lineText(l boardLine) (string, tcell.Style) {
	th := p.env.Theme
	switch {
	case l.kind == lineTask && l.task.Status == vault.TaskDone:
		return p.rowText(*l.task), th.ChatSystem.TCell()
	case l.kind == lineTask:
		return p.rowText(*l.task), th.Base.TCell()
	case l.kind == lineAgent:
		return p.agentText(l.agent), th.Base.TCell()
	case l.text == "team":
		return l.text, th.Title.TCell()
	case p.err != nil && l.text != "":
		return l.text, th.ChatToolError.TCell()
	}
	return l.text, th.ChatSystem.TCell()
}

// agentText is one agent on one line: its state, its name, then its role
// and the tasks it holds; or the row that writes to the whole team.
func (p *BoardPane) agentText(a swarm.Info) string {
	if a.Name == swarm.Everyone {
		return fmt.Sprintf(boardRow, "", "", swarm.Everyone, "", "every agent (m writes to all)")
	}
	var held []string
	for _, t := range p.tasks {
		if t.Owner == a.Name && t.Status == vault.TaskClaimed {
			held = append(held, t.ID)
		}
	}
	var about []string
	if a.Role != "" {
		about = append(about, termsafe.OneLine(a.Role))
	}
	if len(held) > 0 {
		about = append(about, "holds "+strings.Join(held, ", "))
	}
	state := string(a.State)
	if a.Paused {
		state = "paused"
	}
	return fmt.Sprintf(boardRow, "", state, a.Name, "", strings.Join(about, " · "))
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
	return fmt.Sprintf(boardRow, t.ID, t.Status, owner, human.Age(p.env.Time().Sub(t.Updated)), text)
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
