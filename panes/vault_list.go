package panes

import (
	"fmt"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/internal/human"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/themes"
	"github.com/kwsdev/kws/vault"
)

// vaultMasked replaces the summary of a sensitive block in the list.
const vaultMasked = "••• sensitive (r to reveal)"

// edit applies one key to the filter or search being typed: Enter keeps
// it, Esc clears it.
func (p *VaultPane) edit(ev *tcell.EventKey) {
	text := p.filter
	if p.view != nil {
		text = p.view.query
	}
	switch ev.Key() {
	case tcell.KeyEnter, tcell.KeyEscape:
		clear := ev.Key() == tcell.KeyEscape
		p.editing = false
		if p.view != nil {
			p.view.editing = false
		}
		if !clear {
			return
		}
		text = ""
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		_, n := utf8.DecodeLastRuneInString(text)
		text = text[:len(text)-n]
	case tcell.KeyCtrlU:
		text = ""
	case tcell.KeyRune:
		text += string(ev.Rune())
	default:
		return
	}
	if p.view != nil {
		p.view.search(text)
		return
	}
	p.filter = text
	p.applyFilter()
}

// Draw paints the block list, or the viewer when a block is open, and over
// them the inject question while it is asked.
func (p *VaultPane) Draw(screen tcell.Screen) {
	th := p.env.Theme
	x, y, w, h, ok := drawBackground(screen, p.Box, th)
	if !ok {
		return
	}
	if p.view != nil {
		p.view.draw(screen, x, y, w, h, th)
	} else {
		p.drawList(screen, x, y, w, h)
	}
	if p.asking != nil {
		p.asking.draw(screen, x, y, w, h, th)
	}
}

// drawList draws the block list and the filter line.
func (p *VaultPane) drawList(screen tcell.Screen, x, y, w, h int) {
	th := p.env.Theme
	base := th.Base.TCell()
	rows := h - 1
	if p.editing || p.filter != "" {
		rows--
		p.drawFilter(screen, x, y+h-1, w, base)
	}
	p.height = max(rows, 1)
	p.follow(p.height)
	cols := p.columns()
	cols.draw(screen, x, y, w, vaultHeader(th.Title.TCell()), nil, true)
	switch {
	case p.loadErr != nil:
		pane.Put(screen, x, y+1, w, "vault: "+termsafe.OneLine(p.loadErr.Error()), base)
	case len(p.all) == 0:
		putProse(screen, x, y+1, w, rows, "The vault is empty: old context the diet moves out of prompts lands here.", base)
	case len(p.shown) == 0:
		putProse(screen, x, y+1, w, rows, "No block matches the filter (Esc clears it).", base)
	}
	now := p.env.Time()
	for i := 0; i < rows && p.top+i < len(p.shown); i++ {
		m := p.shown[p.top+i]
		var sel *tcell.Style
		if p.top+i == p.sel {
			st := th.Selection.TCell()
			sel = &st
			fill(screen, x, y+1+i, w, 1, st)
		}
		cols.draw(screen, x, y+1+i, w, vaultRowCells(th, m, human.Age(now.Sub(m.Created))), sel, false)
	}
}

// putProse draws text from x, y in style st on at most h lines of w
// columns, broken between words.
func putProse(screen tcell.Screen, x, y, w, h int, text string, st tcell.Style) {
	for i, l := range pane.WrapWords(text, w) {
		if i >= h {
			return
		}
		pane.Put(screen, x, y+i, w, l, st)
	}
}

func (p *VaultPane) drawFilter(screen tcell.Screen, x, y, w int, st tcell.Style) {
	if p.editing {
		n := pane.Put(screen, x, y, w, "/"+p.filter, st)
		if p.HasFocus() {
			screen.ShowCursor(x+n, y)
		}
		return
	}
	pane.Put(screen, x, y, w, fmt.Sprintf("filter %q: %d of %s (/ edits, Esc clears)", p.filter, len(p.shown), blocks(len(p.all))), st)
}

// vaultColumns are the widths of the list's columns (id, kind, agent,
// size, tokens, age); the summary takes the rest of the row.
type vaultColumns [6]int

// vaultCell is one column's text and style.
type vaultCell struct {
	text string
	st   tcell.Style
}

// vaultKindWidth is the widest the kind column grows: the shell tool's
// kept output, "tool:shell STDOUT" or "tool:shell STDERR", fits whole.
const vaultKindWidth = len("tool:shell STDOUT")

func (p *VaultPane) columns() vaultColumns {
	c := vaultColumns{len("ctx:") + 8, 4, 5, 6, 6, 4}
	for _, m := range p.shown {
		c[1] = max(c[1], min(runewidth.StringWidth(termsafe.OneLine(m.Kind)), vaultKindWidth))
		c[2] = max(c[2], min(runewidth.StringWidth(termsafe.OneLine(m.Agent)), 10))
	}
	return c
}

// vaultHeader returns the list's header row.
func vaultHeader(st tcell.Style) []vaultCell {
	var cells []vaultCell
	for _, t := range []string{"id", "kind", "agent", "size", "tokens", "age", "summary"} {
		cells = append(cells, vaultCell{t, st})
	}
	return cells
}

// vaultRowCells returns block m's row; a sensitive block's summary is
// masked.
func vaultRowCells(th *themes.Theme, m vault.Meta, age string) []vaultCell {
	base := th.Base.TCell()
	summary := vaultCell{termsafe.OneLine(m.Summary), base}
	if m.Sensitive || diet.IsSensitive(m.Summary) {
		summary = vaultCell{vaultMasked, th.VaultSensitive.TCell()}
	}
	return []vaultCell{
		{m.ID[:min(len(m.ID), len("ctx:")+8)], th.VaultID.TCell()},
		{termsafe.OneLine(m.Kind), th.VaultKind.TCell()},
		{termsafe.OneLine(m.Agent), base},
		{vaultBytes(m.Chars), th.VaultSize.TCell()},
		{vaultTokens(m), th.VaultSize.TCell()},
		{age, base},
		summary,
	}
}

// draw paints one row of cells; the numeric columns are right-aligned, a
// text wider than its column ends in "…", a column that does not fit in
// w is left out, and sel, when set, overrides every cell's style. When
// whole is set (the header's labels) the last cell too is drawn whole or
// not at all.
func (c vaultColumns) draw(screen tcell.Screen, x, y, w int, cells []vaultCell, sel *tcell.Style, whole bool) {
	end := x + w
	for i, cell := range cells {
		if x >= end {
			return
		}
		if sel != nil {
			cell.st = *sel
		}
		if i == len(c) {
			if !whole || runewidth.StringWidth(cell.text) <= end-x {
				pane.Put(screen, x, y, end-x, cell.text, cell.st)
			}
			return
		}
		if x+c[i] > end {
			return
		}
		at := x
		if pad := c[i] - runewidth.StringWidth(cell.text); i >= 3 && pad > 0 {
			at += pad
		}
		pane.Put(screen, at, y, min(c[i], end-at), runewidth.Truncate(cell.text, c[i], "…"), cell.st)
		x += c[i] + 2
	}
}

// vaultBytes formats a size in bytes: 812B, 12.3K, 4.0M.
func vaultBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fK", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fM", float64(n)/(1024*1024))
}

// vaultTokens formats a block's token count, marked ~ when estimated.
func vaultTokens(m vault.Meta) string {
	s := statsHuman(m.Tokens)
	if m.TokensEstimated {
		s = "~" + s
	}
	return s
}

// selectedID is the id of the selected block, "" when the list is empty.
func (p *VaultPane) selectedID() string {
	if p.sel >= 0 && p.sel < len(p.shown) {
		return p.shown[p.sel].ID
	}
	return ""
}

// selectID selects block id when the list shows it.
func (p *VaultPane) selectID(id string) {
	for i, m := range p.shown {
		if m.ID == id {
			p.sel = i
			return
		}
	}
}

// page is the distance PgUp and PgDn move.
func (p *VaultPane) page() int {
	h := p.height
	if p.view != nil {
		h = p.view.height
	}
	return max(h-1, 1)
}

// move moves the selection, or scrolls the viewer, by d lines.
func (p *VaultPane) move(d int) {
	if p.view != nil {
		p.view.scroll(d)
		return
	}
	p.moveBy(d, len(p.shown))
}

// jump goes to the first or last block, or the top or end of the block
// being viewed (the viewer clamps its scroll when drawn).
func (p *VaultPane) jump(end bool) {
	if end {
		p.move(1 << 30)
	} else {
		p.move(-1 << 30)
	}
}
