package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/termsafe"
)

// window is one of the workstation's windows, as tmux's: a layout tree of
// panes with its own focus, zoom and preset layout. One window is on the
// screen at a time; the panes of the others keep running (an agent goes on
// working, a shell's program goes on printing).
type window struct {
	// name is the name the user gave (rename-window); "" names the window
	// after its focused pane, as tmux's automatic rename does.
	name    string
	tree    tree
	focused *leaf
	// preset is the preset layout chosen last, "" for none; next-layout
	// goes on from it.
	preset Preset
}

// maxWindowName bounds a window's name in the status bar and the tree.
const maxWindowName = 20

// displayName is the window's name: the one given, else its focused pane's
// short title ("agent-1", "vim").
func (w *window) displayName() string {
	if w.name != "" {
		return w.name
	}
	lf := w.focused
	if lf == nil {
		if leaves := w.tree.leaves(); len(leaves) > 0 {
			lf = leaves[0]
		}
	}
	if lf == nil {
		return ""
	}
	return shortTitle(lf.title())
}

// shortTitle is the first part of a pane's title: "agent-1" of "agent-1
// (coder) · idle", "vim" of "shell: vim", "vault" of "vault (3 blocks)".
func shortTitle(t string) string {
	if rest, ok := strings.CutPrefix(t, "shell: "); ok {
		t = rest
	}
	for _, sep := range []string{" · ", " (", ": "} {
		t, _, _ = strings.Cut(t, sep)
	}
	return windowName(t)
}

// windowName is name as a window carries it: one line, cut to
// maxWindowName columns.
func windowName(name string) string {
	return runewidth.Truncate(termsafe.OneLine(name), maxWindowName, "…")
}

// waiting reports whether a pane of the window waits for the user.
func (w *window) waiting() bool {
	return slices.ContainsFunc(w.tree.leaves(), func(lf *leaf) bool { return needsYou(lf.pane) })
}

// WindowInfo is one window as list-windows tells it.
type WindowInfo struct {
	Index  int
	Name   string
	Panes  int
	Active bool
	// Waiting is set while a pane of the window waits for the user.
	Waiting bool
	Zoomed  bool
}

// Windows lists the windows in order; call it on the UI goroutine.
func (a *App) Windows() []WindowInfo {
	var out []WindowInfo
	for i, w := range a.windows {
		out = append(out, WindowInfo{Index: i, Name: w.displayName(), Panes: len(w.tree.leaves()),
			Active: w == a.layout.window, Waiting: w.waiting(), Zoomed: w.tree.zoomed != nil})
	}
	return out
}

// allLeaves returns every window's leaves, window by window.
func (a *App) allLeaves() []*leaf {
	var out []*leaf
	for _, w := range a.windows {
		out = append(out, w.tree.leaves()...)
	}
	return out
}

// windowOf returns the window holding lf.
func (a *App) windowOf(lf *leaf) *window {
	for _, w := range a.windows {
		if slices.Contains(w.tree.leaves(), lf) {
			return w
		}
	}
	return nil
}

// windowIndex is w's number, from 0 in the status bar's order.
func (a *App) windowIndex(w *window) int { return slices.Index(a.windows, w) }

// paneName names lf for messages: its number, after its window's and a
// dot when that is not window 0 ("1.2"), as tmux's targets do.
func (a *App) paneName(lf *leaf) string {
	w := a.windowOf(lf)
	return PaneInfo{Window: a.windowIndex(w), Index: slices.Index(w.tree.leaves(), lf)}.Name()
}

// switchTo puts w on the screen. The panes of the window it leaves get no
// place: nothing draws, captures or clicks them until it is back.
func (a *App) switchTo(w *window) {
	cur := a.layout.window
	if cur == w {
		return
	}
	for _, lf := range cur.tree.leaves() {
		lf.w, lf.h = 0, 0
	}
	if slices.Contains(a.windows, cur) {
		a.lastWin = cur
	}
	a.layout.window = w
	a.relayout()
}

// selectWindow shows w with the focus on its focused pane.
func (a *App) selectWindow(w *window) {
	lf := w.focused
	if lf == nil {
		lf = w.tree.leaves()[0]
	}
	a.focusLeaf(lf)
}

// windowAt returns window n, or says which numbers there are.
func (a *App) windowAt(n int) (*window, error) {
	if n < 0 {
		return a.layout.window, nil
	}
	if n >= len(a.windows) {
		return nil, fmt.Errorf("no window %d (windows 0 to %d)", n, len(a.windows)-1)
	}
	return a.windows[n], nil
}

// windowNamed finds a window by number or by name; a leading "=" (tmux's
// exact match) is ignored.
func (a *App) windowNamed(arg string) (*window, error) {
	arg = strings.TrimPrefix(arg, "=")
	var n int
	if _, err := fmt.Sscanf(arg, "%d", &n); err == nil && fmt.Sprint(n) == arg {
		return a.windowAt(n)
	}
	for _, w := range a.windows {
		if w.displayName() == arg {
			return w, nil
		}
	}
	var names []string
	for i, w := range a.windows {
		names = append(names, fmt.Sprintf("%d:%s", i, w.displayName()))
	}
	return nil, fmt.Errorf("no window %q (%s)", arg, strings.Join(names, " "))
}

// NewWindow opens a window after the last with a pane built from s, named
// name ("" names it after its pane), and shows it, as tmux's new-window
// does; call it on the UI goroutine.
func (a *App) NewWindow(s pane.Spec, name string) (pane.Pane, error) {
	p, s, err := a.build(s)
	if err != nil {
		return nil, fmt.Errorf("cannot open a %s pane: %w", s, err)
	}
	w := &window{name: windowName(name)}
	a.windows = append(a.windows, w)
	a.switchTo(w)
	lf := a.insert(nil, LeftRight, s, p)
	a.relayout()
	a.focusLeaf(lf)
	return p, nil
}

// newWindowKey opens a window with a shell, as C-b c does in tmux.
func (a *App) newWindowKey() {
	if _, err := a.NewWindow(pane.Spec{Kind: pane.KindShell}, ""); err != nil {
		a.Notify(err.Error())
	}
}

// SelectWindow shows window n.
func (a *App) SelectWindow(n int) error {
	w, err := a.windowAt(n)
	if err != nil {
		return err
	}
	a.selectWindow(w)
	return nil
}

// stepWindow shows the window step places after the current one, around
// the end, as tmux's next-window and previous-window do.
func (a *App) stepWindow(step int) {
	if len(a.windows) == 1 {
		a.Notify("no other window (" + a.prefixName() + " c opens one)")
		return
	}
	i := a.windowIndex(a.layout.window)
	a.selectWindow(a.windows[(i+step+len(a.windows))%len(a.windows)])
}

// lastWindow shows the window shown before this one (tmux's C-b l).
func (a *App) lastWindow() {
	if a.lastWin == nil || !slices.Contains(a.windows, a.lastWin) {
		a.Notify("no last window")
		return
	}
	a.selectWindow(a.lastWin)
}

// RenameWindow names window n; "" gives it back its automatic name.
func (a *App) RenameWindow(n int, name string) error {
	w, err := a.windowAt(n)
	if err != nil {
		return err
	}
	w.name = windowName(strings.TrimSpace(name))
	a.changed()
	return nil
}

// askRename asks for the window's new name (tmux's C-b ,).
func (a *App) askRename() {
	w := a.layout.window
	a.promptText("rename window "+fmt.Sprint(a.windowIndex(w))+": ", w.displayName(), func(text string) {
		_ = a.RenameWindow(-1, text)
	})
}

// askRenameSession asks for the session's new name (tmux's C-b $).
func (a *App) askRenameSession() {
	if a.cfg.RenameSession == nil {
		a.Notify("not attached to a kws server: no session to rename")
		return
	}
	a.promptText("rename session: ", a.cfg.SessionName(), a.renameSession)
}

// renameSession renames the session, off the UI goroutine, and says how
// it went.
func (a *App) renameSession(name string) {
	if a.cfg.RenameSession == nil {
		a.Notify("not attached to a kws server: no session to rename")
		return
	}
	name = strings.TrimSpace(name)
	go func() {
		msg := "session renamed " + name + " (kws attach -t " + name + ")"
		if err := a.cfg.RenameSession(name); err != nil {
			msg = "rename-session: " + err.Error()
		}
		a.Update(func() { a.Notify(msg) })
	}()
}

// killWindow closes w and every pane in it, as tmux's kill-window does;
// killing the last window quits.
func (a *App) killWindow(w *window) {
	for _, lf := range w.tree.leaves() {
		_ = lf.pane.Close()
		if a.lastOf[lf.pane.Kind()] == lf.pane {
			delete(a.lastOf, lf.pane.Kind())
		}
	}
	w.tree = tree{}
	w.focused = nil
	a.dropWindow(w)
}

// dropWindow takes the empty window w out and shows another: the last one
// shown, else its neighbour; with no window left it quits.
func (a *App) dropWindow(w *window) {
	i := a.windowIndex(w)
	a.windows = slices.Delete(a.windows, i, i+1)
	if len(a.windows) == 0 {
		a.layout.focused = nil
		a.changed()
		a.Quit()
		return
	}
	if a.layout.window != w {
		a.changed()
		return
	}
	next := a.lastWin
	if next == nil || !slices.Contains(a.windows, next) {
		next = a.windows[min(i, len(a.windows)-1)]
	}
	a.lastWin = nil
	a.selectWindow(next)
}

// askKillWindow closes the window after asking, as tmux's C-b & does,
// saying what running work it would end.
func (a *App) askKillWindow() {
	w := a.layout.window
	leaves := w.tree.leaves()
	msg := fmt.Sprintf("Kill window %d (%s) and its %d panes?", a.windowIndex(w), w.displayName(), len(leaves))
	if len(leaves) == 1 {
		msg = fmt.Sprintf("Kill window %d (%s)?", a.windowIndex(w), w.displayName())
	}
	var warns []string
	for _, lf := range leaves {
		if cw, ok := lf.pane.(pane.CloseWarner); ok {
			if warn := cw.CloseWarning(); warn != "" {
				warns = append(warns, warn)
			}
		}
	}
	if len(warns) > 0 {
		msg = strings.Join(warns, " ") + " " + msg
	}
	a.confirm(msg, "Kill", func() { a.killWindow(w) })
}

// breakPane moves the focused pane out into a window of its own, as tmux's
// break-pane (C-b !) does.
func (a *App) breakPane() {
	lf := a.layout.focused
	if lf == nil {
		return
	}
	old := a.layout.window
	leaves := old.tree.leaves()
	if len(leaves) == 1 {
		a.Notify("the pane is alone in its window")
		return
	}
	old.tree.remove(lf)
	// The window left keeps the focus on its pane focused last.
	old.focused = nil
	for _, o := range old.tree.leaves() {
		if old.focused == nil || o.used > old.focused.used {
			old.focused = o
		}
	}
	w := &window{}
	lf.node = &node{leaf: lf}
	w.tree.root = lf.node
	a.windows = append(a.windows, w)
	a.focusLeaf(lf)
}

// errNoRoom is openTiled's error when the window has no room for a pane.
var errNoRoom = errors.New("no room in the window")

// openTiledOrWindow opens the pane s names tiled in the current window,
// or, when that one is full, in a new window named name.
func (a *App) openTiledOrWindow(s pane.Spec, name string) (p pane.Pane, newWindow bool, err error) {
	p, err = a.openTiled(s)
	if !errors.Is(err, errNoRoom) {
		return p, false, err
	}
	p, err = a.NewWindow(s, name)
	return p, err == nil, err
}
