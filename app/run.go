package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
)

// SessionFor is the server's live workstation whose workspace is ws, or
// nil when no session works there.
func (st *Stores) SessionFor(ws string) *Workstation {
	st.mu.Lock()
	defer st.mu.Unlock()
	for w := range st.open {
		if w.ws == ws && w.app != nil {
			return w
		}
	}
	return nil
}

// sessionName is the name of the server session w runs as.
func (w *Workstation) sessionName() string {
	w.st.mu.Lock()
	defer w.st.mu.Unlock()
	return w.st.open[w]
}

// Task is a task kws run gives a live session, and what hears it run.
type Task struct {
	// Text is the task.
	Text string
	// Yes answers every approval the agent asks for; without it they
	// wait in the agent's pane.
	Yes bool
	// Started hears the agent's name and its session's once it runs.
	Started func(agent, session string)
	// OnEvent hears each event of the agent's loop.
	OnEvent func(agent.Event)
}

// RunTask runs t as a new agent of the live session: its pane opens
// beside the others (the agent runs without one when there is no room).
// It returns the agent's session id when the turn is done. ctx ending
// (the client went away) stops the agent's turn.
func (w *Workstation) RunTask(ctx context.Context, t Task) (string, error) {
	events, unsubscribe := w.swarm.Subscribe()
	defer unsubscribe()
	named := make(chan string, 1)
	w.app.Update(func() {
		p, err := w.app.OpenAgent("")
		if n, ok := p.(interface{ Name() string }); err == nil && ok {
			if tk, ok := p.(pane.Tasker); ok {
				_ = tk.SendTask(t.Text)
			}
			named <- n.Name()
			return
		}
		name := w.swarm.Spawn()
		_ = w.swarm.Send(name, t.Text)
		named <- name
	})
	var name string
	select {
	case name = <-named:
	case <-ctx.Done():
		return "", errors.New("the client went away before the agent started")
	}
	t.Started(name, w.sessionName())
	for {
		select {
		case <-ctx.Done():
			_ = w.swarm.Cancel(name)
			return "", fmt.Errorf("stopped: %w", context.Cause(ctx))
		case e, ok := <-events:
			if !ok {
				return "", errors.New("the session ended")
			}
			if e.Agent != name {
				continue
			}
			switch e.Type {
			case swarm.EvAgent:
				t.OnEvent(e.Loop)
			case swarm.EvAsk:
				if t.Yes && e.Request != nil {
					_ = w.swarm.Answer(e.Request.ID, permission.Answer{Decision: permission.AllowOnce})
				}
			case swarm.EvFinished:
				if e.Err != "" {
					return "", errors.New(e.Err)
				}
				info, _ := w.swarm.Info(name)
				return info.Session, nil
			}
		}
	}
}
