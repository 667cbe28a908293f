package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/panes"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
)

// paneRegistry registers every kind of pane the application opens, each
// wired to the swarm, the vault and the shell.
func (w *Workstation) paneRegistry() *pane.Registry {
	r := pane.NewRegistry()
	r.Register(panes.AgentInfo, func(s pane.Spec) (pane.Pane, error) {
		name := w.swarm.SpawnResume(s.Role, s.State[pane.StateAgent], s.State[pane.StateSession])
		// A restored agent's figures go on from where they were.
		if saved, ok := w.seedStats[s.State[pane.StateAgent]]; ok && s.State[pane.StateAgent] == name {
			_ = w.swarm.SeedStats(name, saved)
		}
		p := panes.NewAgentPane(w.env, name, w.swarm, w.openBlock)
		w.wireWorktree(p)
		return p, nil
	})
	r.Register(panes.ShellInfo, func(s pane.Spec) (pane.Pane, error) {
		return panes.NewShellPane(w.env, panes.ShellOptions(w.shell, s), func(kind string, text []byte) (string, error) {
			id, err := Keep(w.st.vault, kind, "user", text)
			if err == nil {
				// Called on the UI goroutine: the vault pane shows it at once.
				w.feed.vaultAt = time.Time{}
				w.feed.refreshVault()
			}
			return id, err
		})
	})
	r.Register(panes.VaultInfo, func(pane.Spec) (pane.Pane, error) {
		vp := panes.NewVaultPane(w.env, w.st.vault, panes.Injector{Target: w.injectTarget, Give: w.swarm.Inject})
		vp.SetSummarizer(w.st.sidecar.Summarize)
		return vp, nil
	})
	r.Register(panes.StatsInfo, func(pane.Spec) (pane.Pane, error) {
		return panes.NewStatsPane(w.env, w.swarm.Agents), nil
	})
	r.Register(panes.MemoryInfo, func(pane.Spec) (pane.Pane, error) {
		if w.st.memory == nil {
			return nil, fmt.Errorf("memory is off: %w", w.st.MemoryOff())
		}
		return panes.NewMemoryPane(w.env, w.st.memory, w.openBlockOrTell), nil
	})
	r.Register(panes.BoardInfo, func(pane.Spec) (pane.Pane, error) {
		return panes.NewBoardPane(w.env, w.board, w.boardAgents, func(agent, text string) error {
			return w.swarm.Message("", agent, text)
		}), nil
	})
	return r
}

// openBlock shows vault block id in the vault pane, which takes the focus.
// A block the vault does not hold is an error and moves nothing
// (ui.Config.HasBlock): the pane that asked keeps the focus and shows why.
func (w *Workstation) openBlock(id string) error { return w.feed.app.OpenBlock(id) }

// openBlockOrTell opens block id for the memory pane, or says in the
// status bar why not.
func (w *Workstation) openBlockOrTell(id string) {
	if err := w.feed.app.OpenBlock(id); err != nil {
		w.feed.app.Notify(err.Error())
	}
}

// hasBlock is ui.Config.HasBlock: nil when the vault holds block id.
func (w *Workstation) hasBlock(id string) error {
	_, err := w.st.vault.Meta(id)
	return err
}

// injectTarget names the agent a vault block goes to: the one whose pane
// had the focus last.
func (w *Workstation) injectTarget() (string, error) {
	p, ok := w.feed.app.Last(pane.KindAgent).(*panes.AgentPane)
	if !ok {
		return "", errors.New("no agent pane to give the block to (C-b a opens one)")
	}
	return p.Name(), nil
}

// newAgent is the swarm's agent factory: one session per agent, all on the
// one vault and the one permission broker.
func (w *Workstation) newAgent(name string, onEvent func(agent.Event)) (swarm.Runner, error) {
	local, err := w.localModel()
	if err != nil {
		return nil, err
	}
	dir, err := w.agentWorkspace(name)
	if err != nil {
		return nil, err
	}
	spec := AgentSpec{Name: name, DataDir: w.st.opts.DataDir, Workspace: w.ws, Dir: dir, Config: w.cfg,
		Overrides: w.overrides, Local: local, WrapClient: w.limiter.Client, Role: w.swarm.Role(name), Skills: w.skills,
		Params: w.params, Vault: w.st.vault, Broker: w.broker, Sandbox: w.st.Sandbox().forWorktree(w.ws, dir),
		Hidden: w.st.Sandbox().Hidden,
		Router: w.st.sidecar, Critic: w.st.sidecar, Summarizer: w.st.sidecar, OnEvent: onEvent,
		Board: w.board.For(name), Mailbox: w.swarm.Mailbox(name), Notices: w.swarm.Notices(name)}
	if w.mcp != nil {
		spec.External = w.mcp
	}
	if w.st.memory != nil {
		spec.Memory = AgentMemory(w.st.memory, w.st.vault, w.ws, dir, name, w.st.sidecar, w.st.log)
	}
	// A restored pane's agent continues its session.
	if id := w.swarm.ResumeSession(name); id != "" {
		sess, _, err := transcript.Open(w.st.opts.DataDir, id)
		if err != nil {
			return nil, fmt.Errorf("resume session %s: %w", id, err)
		}
		spec.Session, spec.History = sess, sess.Messages()
	}
	a, err := BuildAgent(spec)
	if err != nil {
		if spec.Session != nil {
			_ = spec.Session.Close()
		}
		return nil, err
	}
	w.mu.Lock()
	w.sessions = append(w.sessions, agentSession{agent: name, sess: a.Session()})
	w.mu.Unlock()
	w.st.log.Info("agent started", "agent", name, "session", a.Session().ID(), "model", w.cfg.Model)
	return a, nil
}
