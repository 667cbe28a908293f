package panes

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mattn/go-runewidth"
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
	p.lastW = w
	all := p.lines(w)
	p.refs = p.refs[:0]
	for _, l := range all {
		for _, s := range l {
			if s.ref != "" {
				p.refs = append(p.refs, s.ref)
			}
		}
	}
	if p.selected >= len(p.refs) {
		p.selected = -1
	}
	if p.scroll > 0 && len(all) > p.total {
		p.scroll += len(all) - p.total
	}
	p.total = len(all)
	maxScroll := max(0, len(all)-rows)
	p.scroll = min(max(p.scroll, 0), maxScroll)
	if p.selected >= 0 {
		p.revealSelected(all, rows)
	}
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
	start := max(0, len(all)-rows-p.scroll)
	p.shown = all[start:min(len(all), start+rows)]
	refIndex := p.countRefs(all[:start])
	for row := 0; row < rows && start+row < len(all); row++ {
		col := x
		for _, s := range all[start+row] {
			st := s.style
			if s.ref != "" {
				if refIndex == p.selected {
					st = th.ChatRefSelected.TCell()
				}
				refIndex++
			}
			col += pane.Put(screen, col, y+row, x+w-col, s.text, st)
		}
	}
	if below := len(all) - start - rows; p.scroll > 0 && below > 0 && rows > 0 {
		// Scrolled up, as tmux's copy mode shows its position: how much
		// is below and the key that goes back.
		mark := pane.FitWords(fmt.Sprintf(" ↓ %d more lines (%s) ", below, p.keyName("scroll-down")), w)
		mw := runewidth.StringWidth(mark)
		pane.Put(screen, x+w-mw, y+rows-1, mw, mark, th.HintKey.TCell())
	}
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

// lines returns the whole transcript wrapped to width w, the queued turns
// last.
func (p *AgentPane) lines(w int) []line {
	var all []line
	for _, e := range p.entries {
		all = append(all, p.render(e, w)...)
	}
	return append(all, p.queuedLines(w)...)
}

func (p *AgentPane) countRefs(ls []line) int {
	n := 0
	for _, l := range ls {
		for _, s := range l {
			if s.ref != "" {
				n++
			}
		}
	}
	return n
}

// revealSelected scrolls so the selected ref is on screen.
func (p *AgentPane) revealSelected(all []line, rows int) {
	n := 0
	for i, l := range all {
		for _, s := range l {
			if s.ref == "" {
				continue
			}
			if n == p.selected {
				start := max(0, len(all)-rows-p.scroll)
				if i < start {
					p.scroll = len(all) - rows - i
				} else if i >= start+rows {
					p.scroll = len(all) - i - 1
				}
				p.scroll = max(p.scroll, 0)
				return
			}
			n++
		}
	}
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

func (p *AgentPane) scrollBy(n int) { p.scroll += n }

// selectRef moves the ref selection by step, wrapping, newest first.
func (p *AgentPane) selectRef(step int) {
	if len(p.refs) == 0 {
		p.env.Tell("no vault refs in this transcript yet")
		return
	}
	switch {
	case p.selected < 0 && step > 0:
		p.selected = len(p.refs) - 1
	case p.selected < 0:
		p.selected = 0
	default:
		p.selected = (p.selected - step + len(p.refs)) % len(p.refs)
	}
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
			p.scrollBy(3)
		case tview.MouseScrollDown:
			p.scrollBy(-3)
		case tview.MouseLeftClick:
			if id := p.refAt(x, y); id != "" {
				p.open(id)
			}
			setFocus(p)
		default:
			return false, nil
		}
		return true, nil
	})
}

// refAt returns the vault ref drawn at screen position x, y.
func (p *AgentPane) refAt(x, y int) string {
	ix, iy, _, _ := p.GetInnerRect()
	row := y - iy
	if row < 0 || row >= len(p.shown) {
		return ""
	}
	col := ix
	for _, s := range p.shown[row] {
		w := runewidth.StringWidth(s.text)
		if x >= col && x < col+w {
			return s.ref
		}
		col += w
	}
	return ""
}
