package panes

import (
	"regexp"
	"strings"

	"github.com/rivo/tview"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/pane"
)

// Draw paints the transcript, the permission dialog when one is waiting,
// and the input line, or in its place the restart question.
func (p *AgentPane) Draw(screen tcell.Screen) {
	th := p.env.Theme
	x, y, w, h, ok := drawBackground(screen, p.Box, th)
	if !ok {
		return
	}
	prompt := min(p.promptHeight(w), max(1, h/2))
	bottom := prompt
	if p.dialog.waiting() && h > prompt {
		bottom += p.drawDialog(screen, x, y, w, h-prompt)
	}
	rows := max(0, h-bottom)
	all := p.view.lines(w, p.queuedLines(w))
	if len(all) == 0 {
		// Shown, not kept: the welcome is no part of the transcript.
		for row, l := range p.welcome(w) {
			col := x
			for _, s := range l {
				if row < rows {
					col += pane.Put(screen, col, y+row, x+w-col, s.text, s.style)
				}
			}
		}
	}
	p.view.draw(screen, all, x, y, w, rows)
	p.input.SetRect(x, y+h-prompt, w, prompt)
	p.input.SetPlaceholder(p.placeholder(w - 2)) // after the label "› "
	if p.promptLines(w) <= prompt {
		// The whole prompt fits: show it from its first line, whatever
		// the editor scrolled to while it was smaller.
		p.input.SetOffset(0, 0)
	}
	if p.restartAsk {
		fill(screen, x, y+h-1, w, 1, th.Dialog.TCell())
		pane.Put(screen, x, y+h-1, w, p.restartQuestion(w), th.Dialog.TCell())
		return
	}
	p.input.Draw(screen)
}

// diffStyle colours one preview line like a unified diff.
func diffStyle(env *pane.Env, l string) tcell.Style {
	th := env.Theme
	switch {
	case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "@@"):
		return th.DiffHunk.TCell()
	case strings.HasPrefix(l, "+"):
		return th.DiffAdd.TCell()
	case strings.HasPrefix(l, "-"):
		return th.DiffDel.TCell()
	}
	return th.DiffContext.TCell()
}

func (p *AgentPane) pageRows() int {
	_, _, _, h := p.GetInnerRect()
	return max(1, h-2)
}

// ctxGetPattern is `.ctx_get id=ctx:…` typed in the input line.
var ctxGetPattern = regexp.MustCompile(`^\s*\.?ctx_get\s+(?:id=)?"?(ctx:[0-9a-f]{8,16})"?`)

// parseCtxGet returns the id of a typed .ctx_get.
func parseCtxGet(text string) (string, bool) {
	m := ctxGetPattern.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// MouseHandler scrolls the transcript with the wheel and opens a vault
// ref on a click.
func (p *AgentPane) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return p.WrapMouseHandler(func(action tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		x, y := ev.Position()
		if !p.InRect(x, y) {
			return false, nil
		}
		switch action {
		case tview.MouseScrollUp:
			p.view.scrollBy(3)
		case tview.MouseScrollDown:
			p.view.scrollBy(-3)
		case tview.MouseLeftClick:
			if id := p.view.refAt(x, y); id != "" {
				p.open(id)
			}
			setFocus(p)
		default:
			return false, nil
		}
		return true, nil
	})
}
