package app

import (
	"errors"
	"fmt"
	"time"

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
	a := w.feed.appP.Load()
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

// Exec runs a command line of kws's command language (ui.Commands) in the
// session, as a program in one of its shell panes asks with kws NAME
// ARGS…, and returns what the command prints.
func (w *Workstation) Exec(args []string) (out string, err error) {
	if uiErr := w.OnUI(func(a *ui.App) { out, err = a.Exec(args) }); uiErr != nil {
		return "", uiErr
	}
	return out, err
}

// CommandInfo is a command of kws's command language as the kws command
// offers it.
type CommandInfo = ui.CommandInfo

// Commands are the commands of kws's command language, for the kws
// command.
func Commands() []CommandInfo { return ui.Commands() }
