package panes

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
)

// EnterCopyMode freezes the scrollback and the screen and lets the user
// move over them, search, select and keep text in the vault; the layout
// calls it for the prefix key followed by [. Output that arrives
// meanwhile is shown when copy mode ends.
func (p *ShellPane) EnterCopyMode() {
	if p.copy != nil {
		return
	}
	hist, sc := p.sess.History(), p.sess.Snapshot()
	top := hist.ScrollbackLines()
	c := &copyMode{hist: hist, top: top, rows: sc.Rows, cols: sc.Cols,
		cur: pty.Pos{Line: top + sc.Cursor.Y, Col: sc.Cursor.X}}
	c.clamp()
	p.copy = c
}

// leaveCopyMode returns to the live screen.
func (p *ShellPane) leaveCopyMode() { p.copy = nil }

// copyActions are copy mode's keys, run on p. They do nothing outside
// copy mode.
func copyActions(p *ShellPane) []keymap.Action {
	in := func(f func(c *copyMode)) func() {
		return func() {
			if p.copy != nil {
				f(p.copy)
			}
		}
	}
	move := func(lines, cols int) func() { return in(func(c *copyMode) { c.move(lines, cols) }) }
	page := func(n int) func() { return in(func(c *copyMode) { c.scroll(n * c.rows / 2) }) }
	return []keymap.Action{
		keymap.Bind("up", "k Up", "cursor up", false, move(-1, 0)),
		keymap.Bind("down", "j Down", "cursor down", false, move(1, 0)),
		keymap.Bind("left", "h Left", "cursor left", false, move(0, -1)),
		keymap.Bind("right", "l Right", "cursor right", false, move(0, 1)),
		keymap.Bind("page-up", "PgUp", "page up", false, page(-2)),
		keymap.Bind("page-down", "PgDn", "page down", false, page(2)),
		keymap.Bind("half-page-up", "Ctrl-u", "half a page up", false, page(-1)),
		keymap.Bind("half-page-down", "Ctrl-d", "half a page down", false, page(1)),
		keymap.Bind("top", "g", "oldest line", false, in(func(c *copyMode) { c.goTo(pty.Pos{}) })),
		keymap.Bind("bottom", "G", "newest line", false, in(func(c *copyMode) { c.goTo(pty.Pos{Line: c.hist.Len() - 1}) })),
		keymap.Bind("line-start", "0 Home", "line start", false, in(func(c *copyMode) { c.goTo(pty.Pos{Line: c.cur.Line}) })),
		keymap.Bind("line-end", "$ End", "line end", false, in((*copyMode).lineEnd)),
		keymap.Bind("previous-prompt", "[", "previous shell prompt (marked with OSC 133)", false, in(func(c *copyMode) { c.toPrompt(c.hist.PrevPrompt) })),
		keymap.Bind("next-prompt", "]", "next shell prompt (marked with OSC 133)", false, in(func(c *copyMode) { c.toPrompt(c.hist.NextPrompt) })),
		keymap.Bind("search", "/", "search", true, in(func(c *copyMode) { c.openSearch(false) })),
		keymap.Bind("search-back", "?", "search back", false, in(func(c *copyMode) { c.openSearch(true) })),
		keymap.Bind("next-match", "n", "next match", true, in(func(c *copyMode) { p.findNext(c.backward) })),
		keymap.Bind("prev-match", "N", "previous match", false, in(func(c *copyMode) { p.findNext(!c.backward) })),
		keymap.Bind("select", "v", "select", true, in(func(c *copyMode) { c.toggle(selChars) })),
		keymap.Bind("select-lines", "V", "select lines", true, in(func(c *copyMode) { c.toggle(selLines) })),
		keymap.Bind("copy", "y Enter", "copy (clipboard, buffer, vault)", true, in(func(*copyMode) { p.copySelection() })),
		keymap.Bind("send-to-vault", "K", "keep screen", true, in(func(*copyMode) { p.SendToVault() })),
		keymap.Bind("quit", "q Esc", "leave", true, p.leaveCopyMode),
	}
}

// copyInput handles a key in copy mode: the search line takes it while it
// is open, else the copy table; other keys are ignored.
func (p *ShellPane) copyInput(ev *tcell.EventKey) {
	c := p.copy
	if !c.typing {
		p.copyKeys.Handle(ev)
		return
	}
	switch ev.Key() {
	case tcell.KeyEscape:
		c.typing = false
	case tcell.KeyEnter:
		c.typing = false
		if q := string(c.input); q != "" {
			c.query, c.matches = q, c.hist.SearchAll(q)
		}
		c.backward = c.inputBack
		p.findNext(c.backward)
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if n := len(c.input); n > 0 {
			c.input = c.input[:n-1]
		}
	case tcell.KeyRune:
		c.input = append(c.input, ev.Rune())
	}
}

// findNext moves the cursor to the next match of the search, backward or
// forward, wrapping around the history.
func (p *ShellPane) findNext(backward bool) {
	c := p.copy
	if c.query == "" {
		p.env.Tell("shell: no search yet (/ or ? starts one)")
		return
	}
	m, ok := c.hist.Search(c.query, c.cur, backward)
	if !ok {
		from := pty.Pos{Line: 0, Col: -1}
		if backward {
			from = pty.Pos{Line: c.hist.Len()}
		}
		m, ok = c.hist.Search(c.query, from, backward)
	}
	if !ok {
		p.env.Tell(fmt.Sprintf("shell: no match for %q", c.query))
		return
	}
	c.goTo(m.Start)
}

// copySelection copies the selection to the clipboard, the paste buffer
// and the vault, and leaves copy mode.
func (p *ShellPane) copySelection() {
	c := p.copy
	text := c.selection()
	switch {
	case c.sel == selNone:
		p.env.Tell("shell: nothing selected (v selects characters, V lines)")
		return
	case strings.TrimSpace(text) == "":
		p.env.Tell("shell: nothing to copy")
		return
	}
	p.copyText(text)
	p.leaveCopyMode()
}

// drawCopy paints the history from the top line shown, with the search
// matches, the selection and the cursor marked, the position at the top
// right and the search line at the bottom while it is open.
func (p *ShellPane) drawCopy(screen tcell.Screen, x, y, w, h int) {
	c := p.copy
	c.rows, c.cols = h, w
	c.clamp()
	th := p.env.Theme
	cursor, sel, match := th.CopyCursor.TCell(), th.Selection.TCell(), th.SearchMatch.TCell()
	for row := range h {
		line := c.top + row
		hits := c.hitsOn(line)
		drawRow(screen, x, y+row, w, c.hist.Line(line), th.Base, func(col int) (tcell.Style, bool) {
			at := pty.Pos{Line: line, Col: col}
			switch {
			case at == c.cur:
				return cursor, true
			case c.selected(at):
				return sel, true
			}
			for _, m := range hits {
				if col >= m.Start.Col && col < m.End.Col {
					return match, true
				}
			}
			return tcell.Style{}, false
		})
	}
	pos := fmt.Sprintf("[%d/%d]", c.cur.Line+1, c.hist.Len())
	if len(pos) <= w {
		pane.Put(screen, x+w-len(pos), y, len(pos), pos, th.HintKey.TCell())
	}
	if !c.typing {
		return
	}
	prompt := "/"
	if c.inputBack {
		prompt = "?"
	}
	fill(screen, x, y+h-1, w, 1, th.Base.TCell())
	used := pane.Put(screen, x, y+h-1, w, prompt+string(c.input), th.Base.TCell())
	if p.HasFocus() && used < w {
		screen.ShowCursor(x+used, y+h-1)
	}
}
