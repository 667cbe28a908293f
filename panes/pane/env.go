package pane

import (
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/themes"
)

// Env is what every pane is given by the application.
type Env struct {
	// Theme holds every style a pane draws with.
	Theme *themes.Theme
	// Update runs fn on the UI goroutine and redraws; background goroutines
	// reach primitives only through it.
	Update func(fn func())
	// Answer is Update for a program's answer to what the user typed in
	// the pane (a shell's echo): it is drawn at once, even while another
	// pane's flood paces the frames. Nil means Update.
	Answer func(fn func())
	// Now is the clock (ages in the vault pane); nil means time.Now.
	Now func() time.Time
	// Bindings are config.toml's [keys] entries.
	Bindings map[string]string
	// Notify shows a one-line message in the status bar.
	Notify func(msg string)
	// Prefix is how the application's prefix key is shown ("C-b"), for
	// texts that name a prefix command.
	Prefix string
	// WaitingKey is how the key that focuses the next pane waiting for
	// the user is shown ("C-b N"), for texts that point there.
	WaitingKey string
	// Buffer is the paste buffer every pane of the workstation shares.
	Buffer PasteBuffer
	// Clipboard is config.toml's clipboard, tmux's set-clipboard: who may
	// set the system clipboard. ClipboardOn lets programs in shell panes
	// set it (and the paste buffer) with OSC 52, ClipboardOff lets not
	// even copy mode, and anything else ("" or "external") lets copy mode
	// only.
	Clipboard string
	// Commands runs the workstation's command language for a pane (an
	// agent pane's /split-window); nil where there is none.
	Commands Commands
}

// Commands is the workstation's command language as a pane may use it:
// the commands of the palette, the prefix keys and kws NAME.
type Commands interface {
	// CommandNames are the names of the commands, sorted.
	CommandNames() []string
	// RunLine runs a command line, split as a shell splits it, on the UI
	// goroutine and returns what the command prints.
	RunLine(line string) (string, error)
}

// The Clipboard values that differ from the default, as config.toml
// spells them.
const (
	// ClipboardOn lets a program's OSC 52 set the clipboard.
	ClipboardOn = "on"
	// ClipboardOff keeps copy mode from setting the clipboard.
	ClipboardOff = "off"
)

// PasteBuffer is the workstation's paste buffer, as tmux keeps one: the
// text copied last in any pane, which the prefix key's ] pastes. Its zero
// value is empty and ready to use; it is safe for concurrent use.
type PasteBuffer struct {
	mu   sync.Mutex
	text string
}

// Set makes text the buffer's content.
func (b *PasteBuffer) Set(text string) {
	b.mu.Lock()
	b.text = text
	b.mu.Unlock()
}

// Text returns the buffer's content, "" before anything was copied.
func (b *PasteBuffer) Text() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.text
}

// PrefixName returns how the prefix key is shown: Prefix, or "C-b" when
// it is unset.
func (e *Env) PrefixName() string {
	if e.Prefix == "" {
		return "C-b"
	}
	return e.Prefix
}

// Time returns the current time by the Env's clock.
func (e *Env) Time() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Tell shows msg in the status bar; without a Notify it is dropped.
func (e *Env) Tell(msg string) {
	if e.Notify != nil {
		e.Notify(msg)
	}
}

// KeyTable builds a pane's table and applies the user's bindings to it; a
// binding naming an action the table lacks is reported in the status bar.
func (e *Env) KeyTable(scope string, actions ...keymap.Action) *keymap.Table {
	t := keymap.New(scope, actions...)
	if err := keymap.ApplyScope(e.Bindings, t); err != nil {
		e.Tell(err.Error())
	}
	return t
}

// Border draws a border around the w×h rectangle at x, y in style st:
// single lines, or double ones for a dialog that has the focus. It paints
// the border's cells only.
func Border(screen tcell.Screen, x, y, w, h int, st tcell.Style, double bool) {
	b := tview.Borders
	horizontal, vertical, tl, tr, bl, br := b.Horizontal, b.Vertical, b.TopLeft, b.TopRight, b.BottomLeft, b.BottomRight
	if double {
		horizontal, vertical, tl, tr, bl, br = b.HorizontalFocus, b.VerticalFocus, b.TopLeftFocus, b.TopRightFocus, b.BottomLeftFocus, b.BottomRightFocus
	}
	for col := x + 1; col < x+w-1; col++ {
		screen.SetContent(col, y, horizontal, nil, st)
		screen.SetContent(col, y+h-1, horizontal, nil, st)
	}
	for row := y + 1; row < y+h-1; row++ {
		screen.SetContent(x, row, vertical, nil, st)
		screen.SetContent(x+w-1, row, vertical, nil, st)
	}
	screen.SetContent(x, y, tl, nil, st)
	screen.SetContent(x+w-1, y, tr, nil, st)
	screen.SetContent(x, y+h-1, bl, nil, st)
	screen.SetContent(x+w-1, y+h-1, br, nil, st)
}

// Put draws s at x, y in style st, clipped to width w, and returns the
// number of columns used. s is drawn literally (no colour tags); control
// characters show as "?".
func Put(screen tcell.Screen, x, y, w int, s string, st tcell.Style) int {
	used := 0
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = '?'
		}
		rw := runewidth.RuneWidth(r)
		if rw == 0 {
			continue
		}
		if used+rw > w {
			break
		}
		screen.SetContent(x+used, y, r, nil, st)
		used += rw
	}
	return used
}
