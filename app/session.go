package app

import (
	"fmt"
	"strings"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/wire"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// serverSession is a session's workstation running in the server.
type serverSession struct {
	w       *Workstation
	app     *ui.App
	journal *journaler
}

// NewSession builds a session's workstation on the server's stores, on
// the screen the session's clients share; f are the flags the session
// was created with, spec.Workspace its workspace. It is the server's
// session factory.
func (st *Stores) NewSession(spec server.SessionSpec, f Flags) (server.Session, error) {
	w, err := openSession(st, spec.Workspace, f)
	if err != nil {
		return nil, err
	}
	// A kws typed in one of its shells targets this session, as tmux's
	// verbs read $TMUX.
	id, unregister := st.register(w, spec.Name)
	w.shell.Env = append(w.shell.Env, wire.SessionEnv+"="+id)
	if env, err := st.tmuxEnv(); err != nil {
		w.early = append(w.early, err.Error())
	} else {
		w.shell.Env = append(w.shell.Env, env...)
	}
	if spec.Rename != nil {
		w.rename = func(name string) error {
			if err := spec.Rename(name); err != nil {
				return err
			}
			st.renamed(w, name)
			return nil
		}
	}
	unlisten := w.unlisten
	w.unlisten = func() { unlisten(); unregister() }
	w.feed.onAsk = func(agent string) { spec.Notify("kws: " + agent + " waits for approval") }
	s := &serverSession{w: w}
	s.app, err = w.Start(ui.New, func(cfg *ui.Config) {
		cfg.Screen, cfg.Detach = spec.Screen, spec.Detach
		cfg.SessionName, cfg.RenameSession = w.sessionName, w.RenameSession
		// A session the server journaled comes back as it was: its
		// layout, its agents on their sessions, its shells in their
		// directories.
		if saved := parseSessionState(spec.Journal, st.log); saved != nil {
			cfg.Restore, w.seedStats = &saved.Layout, saved.Stats
		}
		cfg.OnLayoutChange = func() { s.journal.changed() }
	}, func(a *ui.App) {
		var idle func() bool
		if spec.Clients != nil {
			idle = func() bool { return spec.Clients() == 0 }
		}
		s.journal = newJournaler(a, idle, w.agentStats, spec.Save, st.log)
		w.feed.onChange = s.journal.changed
	})
	if err != nil {
		w.Close()
		return nil, err
	}
	s.journal.changed()
	return s, nil
}

// Run shows the session until it ends; then its agents stop and their
// sessions close.
func (s *serverSession) Run() error {
	defer s.w.Close()
	defer s.journal.stop()
	return s.app.Run()
}

// End ends the session as its quit key does.
func (s *serverSession) End() { s.app.Update(s.app.Quit) }

// Attached leads a client that attached to the agents waiting for
// approval.
func (s *serverSession) Attached() {
	var waiting []string
	for _, a := range s.Agents() {
		if a.Waiting {
			waiting = append(waiting, a.Name)
		}
	}
	if len(waiting) > 0 {
		s.app.Notify(fmt.Sprintf("‼ %s waiting for approval (%s goes there)", strings.Join(waiting, ", "), waitingKey(s.w.cfg.Keys)))
	}
}

// WaitingPanes are the panes, other than agents', that wait for the user;
// none when the screen does not answer.
func (s *serverSession) WaitingPanes() []server.PaneState {
	var out []server.PaneState
	_ = s.w.OnUI(func(a *ui.App) {
		for _, p := range a.Panes(true) {
			if p.Waiting && p.Kind != pane.KindAgent {
				out = append(out, server.PaneState{Window: p.Window, Number: p.Index, Name: p.Name(), Title: p.Title})
			}
		}
	})
	return out
}

// Agents is the session's agents and their states.
func (s *serverSession) Agents() []server.AgentState {
	var out []server.AgentState
	for _, in := range s.w.swarm.Agents() {
		state := string(in.State)
		if in.Paused && in.State == swarm.StateIdle {
			state = "paused"
		}
		out = append(out, server.AgentState{Name: in.Name, State: state, Role: in.Role, Waiting: in.State == swarm.StateApproval})
	}
	return out
}
