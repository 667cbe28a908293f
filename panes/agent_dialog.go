package panes

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
)

// askQueue is the permission dialog's state: the requests waiting for
// the user, the oldest in front; when it came to the front; and the first
// row of its preview shown.
type askQueue struct {
	asks   []permission.Request
	at     time.Time
	scroll int
}

// waiting reports whether a request waits.
func (q *askQueue) waiting() bool { return len(q.asks) > 0 }

// front is the request the dialog shows; call it only while waiting.
func (q *askQueue) front() permission.Request { return q.asks[0] }

// add queues r and reports whether it is in front now.
func (q *askQueue) add(r permission.Request) (first bool) {
	q.asks = append(q.asks, r)
	return len(q.asks) == 1
}

// next takes the front request (answered) and reports whether another
// is in front now.
func (q *askQueue) next() (answered permission.Request, more bool) {
	answered, q.asks = q.asks[0], q.asks[1:]
	return answered, len(q.asks) > 0
}

// drop forgets every request: they were answered elsewhere.
func (q *askQueue) drop() { q.asks = nil }

// list is a copy of the requests waiting, oldest first.
func (q *askQueue) list() []permission.Request { return append([]permission.Request(nil), q.asks...) }

// dialogRows is the most rows the permission dialog takes.
const dialogRows = 14

// dialogChoice is one answer of the permission dialog.
type dialogChoice struct {
	key      rune
	label    string
	decision permission.Decision
}

// dialogChoices are the permission dialog's keys. They are fixed: no
// configuration rebinds them, so the keys the dialog shows are the keys
// that act. "For every agent" is its own key, never implied by A.
var dialogChoices = []dialogChoice{
	{'y', "allow once", permission.AllowOnce},
	{'A', "this agent's session", permission.AllowSession},
	{'E', "every agent", permission.AllowAll},
	{'n', "deny", permission.Deny},
}

// dialogKey returns the choice a key press makes in the dialog.
func dialogKey(ev *tcell.EventKey) (dialogChoice, bool) {
	if ev.Key() != tcell.KeyRune || ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) != 0 {
		return dialogChoice{}, false
	}
	for _, c := range dialogChoices {
		if c.key == ev.Rune() {
			return c, true
		}
	}
	return dialogChoice{}, false
}

// riskyShell marks the parts of a command line that deserve a second
// look: what chains, pipes, redirects or substitutes commands, and
// programs that delete, download, escalate or run other code.
var riskyShell = regexp.MustCompile("&&|\\|\\||[;&|<>`]|\\$\\(|\\b(?:rm|rmdir|curl|wget|sudo|su|sh|bash|zsh|dash|eval|exec|chmod|chown|dd|mkfs|nc|ncat|ssh|scp|rsync|python3?|perl|node|ruby|xargs|kill|pkill|shred|truncate|crontab|git\\s+push|--force|-rf|-fr)\\b")

// dialogCell is one character of the dialog's preview with its style.
type dialogCell struct {
	r  rune
	st tcell.Style
}

// dialogPreview returns the request's preview wrapped to width w, every
// character kept (long lines wrap, none is cut), risky parts of a shell
// command in the error style and diff lines coloured as diffs.
func (p *AgentPane) dialogPreview(req permission.Request, w int) [][]dialogCell {
	th := p.env.Theme
	var rows [][]dialogCell
	for _, l := range strings.Split(strings.TrimRight(req.Preview, "\n"), "\n") {
		l = expandTabs(termsafe.Strip(l), 4)
		base := diffStyle(p.env, l)
		if req.Tool == "shell" {
			base = th.DiffContext.TCell()
		}
		cells := make([]dialogCell, 0, len(l))
		marks := map[int]bool{}
		if req.Tool == "shell" {
			for _, m := range riskyShell.FindAllStringIndex(l, -1) {
				for i := m[0]; i < m[1]; i++ {
					marks[i] = true
				}
			}
		}
		for i, r := range l {
			st := base
			if marks[i] {
				st = th.ChatToolError.TCell()
			}
			cells = append(cells, dialogCell{r, st})
		}
		rows = append(rows, wrapCells(cells, w)...)
	}
	return rows
}

// wrapCells breaks a line of cells into rows of at most w columns.
func wrapCells(cells []dialogCell, w int) [][]dialogCell {
	if len(cells) == 0 || w < 1 {
		return [][]dialogCell{cells}
	}
	var rows [][]dialogCell
	start, used := 0, 0
	for i, c := range cells {
		rw := runewidth.RuneWidth(c.r)
		if used+rw > w && i > start {
			rows = append(rows, cells[start:i])
			start, used = i, 0
		}
		used += rw
	}
	return append(rows, cells[start:])
}

// choiceRows lays the dialog's choices out in rows of at most w columns:
// every choice stays visible however narrow the pane.
func choiceRows(w int) [][]dialogChoice {
	var rows [][]dialogChoice
	var cur []dialogChoice
	used := 0
	for _, c := range dialogChoices {
		cw := 2 + runewidth.StringWidth(c.label) + 2
		if used > 0 && used+cw > w {
			rows = append(rows, cur)
			cur, used = nil, 0
		}
		cur = append(cur, c)
		used += cw
	}
	return append(rows, cur)
}

// drawDialog draws the first waiting permission request at the bottom of
// the h rows from y and returns the rows it took: never more than h, one
// line when the pane is too short for more. The whole preview is readable:
// long lines wrap and, when it has more rows than fit, PgUp and PgDn
// scroll it; the choices are always drawn.
func (p *AgentPane) drawDialog(screen tcell.Screen, x, y, w, h int) int {
	th := p.env.Theme
	req := p.dialog.front()
	choices := choiceRows(w)
	if h < 4+len(choices) {
		line := "‼ " + req.Tool + ":"
		for _, c := range dialogChoices {
			line += " " + string(c.key) + " " + c.label
		}
		pane.Put(screen, x, y+h-1, w, line, th.StatusAgentWaiting.TCell())
		return 1
	}
	var note []string
	if req.Note != "" {
		note = wrapRow("risk: "+termsafe.OneLine(req.Note), max(w-1, 10), 6)
		note = note[:min(len(note), 3, max(0, h-4-len(choices)))]
	}
	preview := p.dialogPreview(req, max(1, w-1))
	room := max(1, min(dialogRows-2-len(choices), h-2-len(choices)-len(note)))
	scrolled := len(preview) > room
	if scrolled {
		room = max(1, room-1) // one row says where the view is
	}
	p.dialog.scroll = min(max(p.dialog.scroll, 0), max(0, len(preview)-room))
	shown := preview[p.dialog.scroll:min(len(preview), p.dialog.scroll+room)]
	rows := 2 + len(note) + len(shown) + len(choices)
	if scrolled {
		rows++
	}
	top := y + h - rows
	fill(screen, x, top, w, rows, th.Dialog.TCell())
	pane.Put(screen, x, top, w, "‼ "+termsafe.OneLine(req.Agent)+" wants to run "+termsafe.OneLine(req.Tool)+":", th.StatusAgentWaiting.TCell())
	row := top + 1
	for _, l := range note {
		pane.Put(screen, x+1, row, w-1, l, th.ChatToolError.TCell())
		row++
	}
	for _, cells := range shown {
		col := x + 1
		for _, c := range cells {
			col += pane.Put(screen, col, row, x+w-col, string(c.r), c.st)
		}
		row++
	}
	if scrolled {
		pane.Put(screen, x+1, row, w-1, "lines "+strconv.Itoa(p.dialog.scroll+1)+"–"+strconv.Itoa(p.dialog.scroll+len(shown))+
			" of "+strconv.Itoa(len(preview))+" (PgUp/PgDn)", th.ChatSystem.TCell())
		row++
	}
	row++
	if !p.armed() {
		pane.Put(screen, x, row, w, "(keys answer in a moment: typing goes to the input line)", th.ChatSystem.TCell())
		return rows
	}
	for _, line := range choices {
		col := x
		for _, c := range line {
			col += pane.Put(screen, col, row, x+w-col, " "+string(c.key)+" ", th.DialogButtonFocused.TCell())
			col += pane.Put(screen, col, row, x+w-col, " "+c.label+" ", th.DialogButton.TCell())
		}
		row++
	}
	return rows
}
