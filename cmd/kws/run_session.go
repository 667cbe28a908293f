package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
)

// errNoSession is returned by runInSession when no session of the server
// works in the workspace.
var errNoSession = errors.New("no session works in this workspace")

// sessionFor is the server's live workstation whose workspace is ws.
func (st *stores) sessionFor(ws string) *workstation {
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
func (w *workstation) sessionName() string {
	w.stores.mu.Lock()
	defer w.stores.mu.Unlock()
	return w.stores.open[w]
}

// runInSession runs kws run's task as a new agent of the workspace's live
// session: its pane opens beside the others (the agent runs without one
// when there is no room), the client sees the answer stream as a headless
// run prints it, and approvals wait in the pane unless --yes answers
// them. The client going away stops the agent's turn.
func runInSession(cmd *cobra.Command, g *globals, f *runFlags, ws, task string) error {
	w := g.shared.sessionFor(ws)
	if w == nil {
		return errNoSession
	}
	if f.resume != "" || f.baseURL != "" || f.model != "" || f.apiKeyEnv != "" || f.mode != "" {
		return fail("kws run in a running session uses the session's model: --resume, --base-url, --model, --api-key-env and --mode need kws run without a server (kws kill-server)")
	}
	events, unsubscribe := w.swarm.Subscribe()
	defer unsubscribe()
	named := make(chan string, 1)
	w.app.Update(func() {
		p, err := w.app.OpenAgent("")
		if n, ok := p.(interface{ Name() string }); err == nil && ok {
			if t, ok := p.(pane.Tasker); ok {
				_ = t.SendTask(task)
			}
			named <- n.Name()
			return
		}
		name := w.swarm.Spawn()
		_ = w.swarm.Send(name, task)
		named <- name
	})
	var name string
	select {
	case name = <-named:
	case <-cmd.Context().Done():
		return fail("the client went away before the agent started")
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "kws: %s of session %s runs the task\n", name, w.sessionName())
	printer := newEventPrinter(cmd.OutOrStdout(), cmd.ErrOrStderr(), g.json)
	for {
		select {
		case <-cmd.Context().Done():
			_ = w.swarm.Cancel(name)
			return fail("stopped: %v", context.Cause(cmd.Context()))
		case e, ok := <-events:
			if !ok {
				return fail("the session ended")
			}
			if e.Agent != name {
				continue
			}
			switch e.Type {
			case swarm.EvAgent:
				printer.print(e.Loop)
			case swarm.EvAsk:
				if f.yes && e.Request != nil {
					_ = w.swarm.Answer(e.Request.ID, permission.Answer{Decision: permission.AllowOnce})
				}
			case swarm.EvFinished:
				if e.Err != "" {
					return fail("%s", e.Err)
				}
				info, _ := w.swarm.Info(name)
				printer.finish(info.Session)
				return nil
			}
		}
	}
}
