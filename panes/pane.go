// Package panes holds the workstation's panes: AgentPane, ShellPane,
// VaultPane, MemoryPane, BoardPane and StatsPane. Each is a tview
// primitive implementing pane.Pane that draws inside the rectangle the
// layout gives it (the layout draws the frame and title), takes its
// colours from the theme and its keys from its own key-action table, and
// learns about the world only through events delivered on the UI
// goroutine.
package panes

import (
	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/pane"
)

// Each pane offers the application the capabilities it looks for; the
// compiler checks them here, as the application only asserts them.
var (
	_ pane.Pane        = (*AgentPane)(nil)
	_ pane.Waiter      = (*AgentPane)(nil)
	_ pane.CloseWarner = (*AgentPane)(nil)
	_ pane.Tasker      = (*AgentPane)(nil)

	_ pane.Pane         = (*ShellPane)(nil)
	_ pane.CloseWarner  = (*ShellPane)(nil)
	_ pane.CopyModer    = (*ShellPane)(nil)
	_ pane.Keeper       = (*ShellPane)(nil)
	_ pane.PrefixHinter = (*ShellPane)(nil)
	_ pane.KeyTabler    = (*ShellPane)(nil)

	_ pane.Pane        = (*VaultPane)(nil)
	_ pane.BlockOpener = (*VaultPane)(nil)
	_ pane.Refresher   = (*VaultPane)(nil)

	_ pane.Pane      = (*MemoryPane)(nil)
	_ pane.Refresher = (*MemoryPane)(nil)

	_ pane.Pane      = (*BoardPane)(nil)
	_ pane.Refresher = (*BoardPane)(nil)

	_ pane.Pane      = (*StatsPane)(nil)
	_ pane.Refresher = (*StatsPane)(nil)
)

// fill paints the rectangle with style st.
func fill(screen tcell.Screen, x, y, w, h int, st tcell.Style) {
	for row := y; row < y+h; row++ {
		for col := x; col < x+w; col++ {
			screen.SetContent(col, row, ' ', nil, st)
		}
	}
}
