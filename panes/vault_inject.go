package panes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// injectAsk is the question the vault pane asks before a block rides an
// agent's next turn: a block can be large, and every token of it is sent.
type injectAsk struct {
	id, agent string
	text      string
	// yes is set while the Inject button has the focus; Cancel, the safe
	// answer, has it first.
	yes bool
}

// injectButtons are the question's buttons, the yes button first.
var injectButtons = [2]string{"Inject", "Cancel"}

// injectSelected asks whether to inject the viewed or selected block.
func (p *VaultPane) injectSelected() {
	id := p.selectedID()
	if p.view != nil {
		id = p.view.meta.ID
	}
	switch {
	case id == "":
		p.env.Tell("vault: no block selected")
	case p.inject.Target == nil || p.inject.Give == nil:
		p.env.Tell("vault: no agent to inject " + id + " into")
	default:
		p.askInject(id)
	}
}

// askInject asks whether to inject block id, naming its size in tokens
// (the project's counter) and bytes.
func (p *VaultPane) askInject(id string) {
	agent, err := p.inject.Target()
	if err != nil {
		p.env.Tell(fmt.Sprintf("inject %s: %v", id, err))
		return
	}
	data, err := p.src.Get(id)
	if err != nil {
		p.env.Tell(fmt.Sprintf("inject %s: %v", id, err))
		return
	}
	c := tokens.Default().Count(string(data))
	size := grouped(c.Tokens) + " tokens"
	if !c.Exact {
		size = "about " + size
	}
	p.asking = &injectAsk{id: id, agent: agent, text: fmt.Sprintf("Inject %s (%s, %s bytes) into %s's next turn? (y/n)",
		id, size, grouped(len(data)), agent)}
}

// answerInject takes a key while the question is shown, as the close and
// quit dialogs do: y injects, n and Esc cancel, Tab and the arrows move
// between the buttons, Enter presses the focused one. Other keys do
// nothing, so keys meant for somewhere else cannot inject.
func (p *VaultPane) answerInject(ev *tcell.EventKey) {
	a := p.asking
	switch ev.Key() {
	case tcell.KeyEscape:
		p.asking = nil
	case tcell.KeyTab, tcell.KeyBacktab, tcell.KeyLeft, tcell.KeyRight:
		a.yes = !a.yes
	case tcell.KeyEnter:
		p.asking = nil
		if a.yes {
			p.injectNow(a.agent, a.id)
		}
	case tcell.KeyRune:
		if ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) != 0 {
			return
		}
		switch ev.Rune() {
		case 'y', 'Y':
			p.asking = nil
			p.injectNow(a.agent, a.id)
		case 'n', 'N':
			p.asking = nil
		}
	}
}

// injectNow gives block id to agent and says how that went.
func (p *VaultPane) injectNow(agent, id string) {
	if err := p.inject.Give(agent, id); err != nil {
		p.env.Tell(fmt.Sprintf("inject %s: %v", id, err))
		return
	}
	p.env.Tell(id + " will ride " + agent + "'s next turn")
}

// drawAsk draws the question as a dialog centred in the pane's x, y, w, h,
// in the style of the application's close and quit dialogs.
func (a *injectAsk) draw(screen tcell.Screen, x, y, w, h int, th *themes.Theme) {
	bw := min(w, max(30, min(60, w*2/3)))
	lines := wrapRow(a.text, max(1, bw-4), 0)
	// A blank row pads the text above and the buttons below when the pane
	// has the room; a short pane (8 rows at 80x24) drops them first, so
	// the block's size and the (y/n) stay on screen.
	pad := 1
	if len(lines)+6 > h {
		pad = 0
	}
	bh := min(h, len(lines)+4+2*pad)
	bx, by := x+(w-bw)/2, y+(h-bh)/2
	body := th.Dialog.TCell()
	fill(screen, bx, by, bw, bh, body)
	pane.Border(screen, bx, by, bw, bh, th.BorderFocused.TCell(), true)
	inner := bw - 4
	for i, l := range lines {
		if 1+pad+i >= bh-2-pad-1 {
			break
		}
		pane.Put(screen, bx+2+max(0, inner-runewidth.StringWidth(l))/2, by+1+pad+i, inner, l, body)
	}
	labels := [2]string{"  " + injectButtons[0] + "  ", "  " + injectButtons[1] + "  "}
	width := runewidth.StringWidth(labels[0]) + 1 + runewidth.StringWidth(labels[1])
	col, row := bx+2+max(0, inner-width)/2, by+bh-2-pad
	for i, l := range labels {
		st := th.DialogButton.TCell()
		if (i == 0) == a.yes {
			st = th.DialogButtonFocused.TCell()
		}
		col += pane.Put(screen, col, row, bx+bw-2-col, l, st) + 1
	}
}

// grouped writes n with a comma between groups of three digits.
func grouped(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + grouped(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
