// Package panes holds the workstation's panes: AgentPane, ShellPane,
// VaultPane and StatsPane. Each is a tview primitive that draws inside the
// rectangle the layout gives it (the layout draws the frame and title),
// takes its colours from the theme and its keys from its own key-action
// table, and learns about the world only through events delivered on the
// UI goroutine.
package panes

import (
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/themes"
)

// Pane is what the layout holds in a leaf.
type Pane interface {
	tview.Primitive
	// Kind is the pane's kind: agent, shell, vault or stats.
	Kind() string
	// Title is the text of the pane's frame.
	Title() string
	// Keys is the pane's key-action table.
	Keys() *keymap.Table
	// Close releases what the pane owns (a shell, a subscription).
	Close() error
}

// Env is what every pane is given by the application.
type Env struct {
	// Theme holds every style a pane draws with.
	Theme *themes.Theme
	// Update runs fn on the UI goroutine and redraws; background goroutines
	// reach primitives only through it.
	Update func(fn func())
	// Now is the clock (ages in the vault pane); nil means time.Now.
	Now func() time.Time
	// Bindings are config.toml's [keys] entries.
	Bindings map[string]string
	// Notify shows a one-line message in the status bar.
	Notify func(msg string)
	// Prefix is how the application's prefix key is shown ("C-b"), for
	// texts that name a prefix command.
	Prefix string
}

// prefix returns the prefix key's name.
func (e *Env) prefix() string {
	if e.Prefix == "" {
		return "C-b"
	}
	return e.Prefix
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Env) notify(msg string) {
	if e.Notify != nil {
		e.Notify(msg)
	}
}

// Scopes are the key-table scopes of the panes, as config.toml's [keys]
// entries name them ("agent.send").
var Scopes = []string{"agent", "shell", "copy", "vault", "stats", "memory", "board"}

// keys builds a pane's table and applies the user's bindings to it; a
// binding naming an action the table lacks is reported in the status bar.
func (e *Env) keys(scope string, actions ...keymap.Action) *keymap.Table {
	t := keymap.New(scope, actions...)
	if err := keymap.ApplyScope(e.Bindings, t); err != nil {
		e.notify(err.Error())
	}
	return t
}

// fill paints the rectangle with style st.
func fill(screen tcell.Screen, x, y, w, h int, st tcell.Style) {
	for row := y; row < y+h; row++ {
		for col := x; col < x+w; col++ {
			screen.SetContent(col, row, ' ', nil, st)
		}
	}
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
