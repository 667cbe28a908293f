package panes

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/panes/pane"
)

// transcript is the view of an agent's conversation: its entries wrapped
// to the pane's width, scrolled, with the vault refs it shows selectable.
// The agent pane feeds it entries and draws its prompt and dialogs below
// it.
type transcript struct {
	env *pane.Env
	// keyName names the key bound to an agent pane action, for the hints
	// the transcript shows.
	keyName func(action string) string

	entries []*entry
	// raw shows answers as the model wrote them, not rendered as Markdown.
	raw bool
	// expanded is whether tool cards show their arguments and whole
	// results; new cards take it.
	expanded bool
	// scroll is how many rows the view is scrolled up from the bottom.
	scroll int
	// refs are the vault refs of the whole transcript at the last draw,
	// in order; selected indexes them, -1 when none is selected.
	refs     []string
	selected int
	// shown holds the rows drawn last, for mouse clicks; top is the
	// screen row of the first.
	shown []line
	top   int
	left  int
	// total is the row count at the last draw; a scrolled view is shifted
	// by what arrived since, so it stays put.
	total int
}

// add appends an entry.
func (t *transcript) add(e *entry) { t.entries = append(t.entries, e) }

// last reports whether the transcript ends with an entry of kind holding
// text.
func (t *transcript) last(kind entryKind, text string) bool {
	n := len(t.entries)
	return n > 0 && t.entries[n-1].kind == kind && t.entries[n-1].text == text
}

// lines returns the whole transcript wrapped to width w, then extra (the
// turns queued behind the running one).
func (t *transcript) lines(w int, extra []line) []line {
	var all []line
	for _, e := range t.entries {
		all = append(all, t.render(e, w)...)
	}
	return append(all, extra...)
}

// draw paints the view's rows of all in the rectangle at x, y of w × rows
// cells, and keeps the rows shown for mouse clicks. A view scrolled up
// stays on the same rows while more arrive, the selected ref is scrolled
// into view, and a mark at the bottom says how much is below.
func (t *transcript) draw(screen tcell.Screen, all []line, x, y, w, rows int) {
	th := t.env.Theme
	t.refs = t.refs[:0]
	for _, l := range all {
		for _, s := range l {
			if s.ref != "" {
				t.refs = append(t.refs, s.ref)
			}
		}
	}
	if t.selected >= len(t.refs) {
		t.selected = -1
	}
	if t.scroll > 0 && len(all) > t.total {
		t.scroll += len(all) - t.total
	}
	t.total = len(all)
	t.scroll = min(max(t.scroll, 0), max(0, len(all)-rows))
	if t.selected >= 0 {
		t.revealSelected(all, rows)
	}
	start := max(0, len(all)-rows-t.scroll)
	t.shown, t.top, t.left = all[start:min(len(all), start+rows)], y, x
	refIndex := countRefs(all[:start])
	for row, l := range t.shown {
		col := x
		for _, s := range l {
			st := s.style
			if s.ref != "" {
				if refIndex == t.selected {
					st = th.ChatRefSelected.TCell()
				}
				refIndex++
			}
			col += pane.Put(screen, col, y+row, x+w-col, s.text, st)
		}
	}
	if below := len(all) - start - rows; t.scroll > 0 && below > 0 && rows > 0 {
		// Scrolled up, as tmux's copy mode shows its position: how much
		// is below and the key that goes back.
		mark := pane.FitWords(fmt.Sprintf(" ↓ %d more lines (%s) ", below, t.keyName("scroll-down")), w)
		mw := runewidth.StringWidth(mark)
		pane.Put(screen, x+w-mw, y+rows-1, mw, mark, th.HintKey.TCell())
	}
}

// countRefs returns how many vault refs the lines show.
func countRefs(ls []line) int {
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
func (t *transcript) revealSelected(all []line, rows int) {
	n := 0
	for i, l := range all {
		for _, s := range l {
			if s.ref == "" {
				continue
			}
			if n == t.selected {
				start := max(0, len(all)-rows-t.scroll)
				if i < start {
					t.scroll = len(all) - rows - i
				} else if i >= start+rows {
					t.scroll = len(all) - i - 1
				}
				t.scroll = max(t.scroll, 0)
				return
			}
			n++
		}
	}
}

// scrollBy scrolls the view up by n rows (down when n is negative).
func (t *transcript) scrollBy(n int) { t.scroll += n }

// selectRef moves the ref selection by step, wrapping, newest first.
func (t *transcript) selectRef(step int) {
	if len(t.refs) == 0 {
		t.env.Tell("no vault refs in this transcript yet")
		return
	}
	switch {
	case t.selected < 0 && step > 0:
		t.selected = len(t.refs) - 1
	case t.selected < 0:
		t.selected = 0
	default:
		t.selected = (t.selected - step + len(t.refs)) % len(t.refs)
	}
}

// selectedRef returns the selected vault ref, if one is.
func (t *transcript) selectedRef() (string, bool) {
	if t.selected >= 0 && t.selected < len(t.refs) {
		return t.refs[t.selected], true
	}
	return "", false
}

// refAt returns the vault ref drawn at screen position x, y.
func (t *transcript) refAt(x, y int) string {
	row := y - t.top
	if row < 0 || row >= len(t.shown) {
		return ""
	}
	col := t.left
	for _, s := range t.shown[row] {
		w := runewidth.StringWidth(s.text)
		if x >= col && x < col+w {
			return s.ref
		}
		col += w
	}
	return ""
}

// toggleCards expands or collapses every tool card.
func (t *transcript) toggleCards() {
	t.expanded = !t.expanded
	for _, e := range t.entries {
		if e.kind == entryTool {
			e.expanded, e.rendered = t.expanded, nil
		}
	}
}

// toggleRaw switches the answers between rendered Markdown and the text
// as the model wrote it, and reports which is now shown.
func (t *transcript) toggleRaw() bool {
	t.raw = !t.raw
	for _, e := range t.entries {
		if e.kind == entryAssistant {
			e.rendered = nil
		}
	}
	return t.raw
}
