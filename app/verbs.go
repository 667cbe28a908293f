package app

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/ui"
)

// verbTimeout bounds the wait for a session's UI to run a verb.
const verbTimeout = 10 * time.Second

// Session returns the workstation of the server session whose id (what
// $KWS_SESSION holds in its shell panes) or, failing that, whose name is
// key: the one a tmux verb typed in one of its shell panes works on.
func (st *Stores) Session(key string) (*Workstation, error) {
	if key == "" {
		return nil, errors.New("no session: run it in a shell pane of a kws session (KWS_SESSION names it there)")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for w, id := range st.ids {
		if id == key {
			return w, nil
		}
	}
	for w, n := range st.open {
		if n == key {
			return w, nil
		}
	}
	return nil, fmt.Errorf("no session %q (kws ls lists them)", key)
}

// RenameSession renames w's server session, as tmux's rename-session
// does. Call it off the session's UI goroutine.
func (w *Workstation) RenameSession(name string) error {
	if w.rename == nil {
		return errors.New("not a session of a kws server: nothing to rename")
	}
	return w.rename(name)
}

// SessionName is the name of w's server session now.
func (w *Workstation) SessionName() string { return w.sessionName() }

// OnUI runs fn with the application on its UI goroutine and waits for it,
// so that a verb reads and changes the layout between draws.
func (w *Workstation) OnUI(fn func(*ui.App)) error {
	a := w.appP.Load()
	if a == nil {
		return errors.New("the session's screen is not up yet")
	}
	done := make(chan struct{})
	a.Update(func() {
		fn(a)
		close(done)
	})
	select {
	case <-done:
		return nil
	case <-time.After(verbTimeout):
		return errors.New("the session's screen did not answer")
	}
}

// The tmux verbs a program in one of the session's shell panes runs
// (kws list-panes …). A pane is its number; n < 0 is the focused pane.

// ListPanes lists the panes of the window shown as tmux's list-panes
// does: number, title, size, id, and the focused one marked; with all
// (tmux's -s) every window's, each number after its window's.
func (w *Workstation) ListPanes(all bool) (string, error) {
	var b strings.Builder
	err := w.OnUI(func(a *ui.App) {
		for _, p := range a.Panes(all) {
			active := ""
			if p.Active {
				active = " (active)"
			}
			n := strconv.Itoa(p.Index)
			if all {
				n = strconv.Itoa(p.Window) + "." + n
			}
			fmt.Fprintf(&b, "%s: %s [%dx%d] %%%d%s\n", n, p.Title, p.Width, p.Height, p.Index, active)
		}
	})
	return b.String(), err
}

// ListWindows lists the windows as tmux's list-windows does: number,
// name with "*" on the one shown, number of panes, and the one shown
// marked; a window with a pane waiting for the user is marked ‼.
func (w *Workstation) ListWindows() (string, error) {
	var b strings.Builder
	err := w.OnUI(func(a *ui.App) {
		for _, win := range a.Windows() {
			flags, active := "", ""
			if win.Active {
				flags, active = "*", " (active)"
			}
			if win.Zoomed {
				flags += "Z"
			}
			if win.Waiting {
				flags += "‼"
			}
			fmt.Fprintf(&b, "%d: %s%s (%d panes)%s\n", win.Index, win.Name, flags, win.Panes, active)
		}
	})
	return b.String(), err
}

// NewWindow opens a window with a pane of the kind ("" for a shell),
// named name ("" for the automatic name), and shows it.
func (w *Workstation) NewWindow(kind, name string) (err error) {
	spec := pane.Spec{Kind: pane.Kind(kind)}
	if kind == "" {
		spec.Kind = pane.KindShell
	}
	if uiErr := w.OnUI(func(a *ui.App) { _, err = a.NewWindow(spec, name) }); uiErr != nil {
		return uiErr
	}
	return err
}

// SelectWindow shows window n.
func (w *Workstation) SelectWindow(n int) (err error) {
	if uiErr := w.OnUI(func(a *ui.App) { err = a.SelectWindow(n) }); uiErr != nil {
		return uiErr
	}
	return err
}

// RenameWindow names window n (n < 0: the one shown).
func (w *Workstation) RenameWindow(n int, name string) (err error) {
	if uiErr := w.OnUI(func(a *ui.App) { err = a.RenameWindow(n, name) }); uiErr != nil {
		return uiErr
	}
	return err
}

// KillWindow closes window n (n < 0: the one shown) and its panes.
func (w *Workstation) KillWindow(n int) (err error) {
	if uiErr := w.OnUI(func(a *ui.App) { err = a.KillWindow(n) }); uiErr != nil {
		return uiErr
	}
	return err
}

// CapturePane returns the text pane n shows.
func (w *Workstation) CapturePane(n int) (text string, err error) {
	if uiErr := w.OnUI(func(a *ui.App) { text, err = a.CapturePane(n) }); uiErr != nil {
		return "", uiErr
	}
	return text, err
}

// SendKeys sends keys to pane n, as tmux's send-keys does.
func (w *Workstation) SendKeys(n int, keys []string) (err error) {
	if uiErr := w.OnUI(func(a *ui.App) { err = a.SendKeys(n, keys) }); uiErr != nil {
		return uiErr
	}
	return err
}

// DisplayMessage expands format's #{…} variables for pane n of the
// session called session.
func (w *Workstation) DisplayMessage(n int, session, format string) (text string, err error) {
	if uiErr := w.OnUI(func(a *ui.App) { text, err = a.DisplayMessage(n, session, format) }); uiErr != nil {
		return "", uiErr
	}
	return text, err
}

// SelectPane focuses pane n.
func (w *Workstation) SelectPane(n int) (err error) {
	if uiErr := w.OnUI(func(a *ui.App) { err = a.SelectPane(n) }); uiErr != nil {
		return uiErr
	}
	return err
}

// SelectLayout arranges the panes as the preset layout name.
func (w *Workstation) SelectLayout(name string) error {
	if !slices.Contains(ui.Presets, ui.Preset(name)) {
		var names []string
		for _, p := range ui.Presets {
			names = append(names, string(p))
		}
		return fmt.Errorf("no layout %q (layouts: %s)", name, strings.Join(names, ", "))
	}
	return w.OnUI(func(a *ui.App) { a.Command("select-layout " + name) })
}

// SplitWindow splits the focused pane: side by side when horizontal, as
// tmux's -h, else one above the other.
func (w *Workstation) SplitWindow(horizontal bool) error {
	action := "split-down"
	if horizontal {
		action = "split-right"
	}
	return w.OnUI(func(a *ui.App) { a.Command(action) })
}
