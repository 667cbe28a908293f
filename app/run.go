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
		if w.ws == ws && w.feed.app != nil {
			return w
		}
	}
	return nil
}

// Model returns the API root and model the session's agents use.
func (w *Workstation) Model() (baseURL, model string) {
	return w.cfg.BaseURL, w.cfg.Model
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
	// Waiting, when set, hears each tool call whose approval waits in
	// the agent's pane (never with Yes).
	Waiting func(agent, session, tool string)
}

// RunTask runs t as a new agent of the live session: its pane opens
// beside the others (the agent runs without one when there is no room).
// It returns the agent's session id when the turn is done, and fails at
// once when the agent cannot run it (no model, a broken configuration:
// the agent is offline, and the error says why). ctx ending (the client
// went away) stops the agent's turn.
func (w *Workstation) RunTask(ctx context.Context, t Task) (string, error) {
	events, unsubscribe := w.swarm.Subscribe()
	defer unsubscribe()
	type started struct {
		name string
		err  error
	}
	named := make(chan started, 1)
	w.feed.app.Update(func() {
		p, err := w.feed.app.OpenAgent("")
		if n, ok := p.(interface{ Name() string }); err == nil && ok {
			if tk, ok := p.(pane.Tasker); ok {
				err = tk.SendTask(t.Text)
			}
			named <- started{n.Name(), err}
			return
		}
		name := w.swarm.Spawn()
		named <- started{name, w.swarm.Send(name, t.Text)}
	})
	var name string
	select {
	case s := <-named:
		name = s.name
		if s.err != nil {
			return "", fmt.Errorf("%s cannot run the task: %w", name, s.err)
		}
	case <-ctx.Done():
		return "", errors.New("the client went away before the agent started")
	}
	t.Started(name, w.sessionName())
	if info, err := w.swarm.Info(name); err == nil && info.State == swarm.StateOffline {
		return "", fmt.Errorf("%s is offline: %s", name, info.Detail)
	}
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
			case swarm.EvState:
				if e.Info.State == swarm.StateOffline {
					return "", fmt.Errorf("%s is offline: %s", name, e.Info.Detail)
				}
			case swarm.EvAgent:
				t.OnEvent(e.Loop)
			case swarm.EvAsk:
				switch {
				case e.Request == nil:
				case t.Yes:
					_ = w.swarm.Answer(e.Request.ID, permission.Answer{Decision: permission.AllowOnce})
				case t.Waiting != nil:
					t.Waiting(name, w.sessionName(), e.Request.Tool)
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
