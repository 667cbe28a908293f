package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/kwsdev/kws/ui"
)

// verbTimeout bounds the wait for a session's UI to run a verb.
const verbTimeout = 10 * time.Second

// Session returns the workstation of the server session called name: the
// one a tmux verb typed in one of its shell panes works on ($KWS_SESSION).
func (st *Stores) Session(name string) (*Workstation, error) {
	if name == "" {
		return nil, errors.New("no session: run it in a shell pane of a kws session (KWS_SESSION names it there)")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for w, n := range st.open {
		if n == name {
			return w, nil
		}
	}
	return nil, fmt.Errorf("no session %q (kws ls lists them)", name)
}

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
