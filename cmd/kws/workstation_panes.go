package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/memory/agentmem"
	"github.com/kwsdev/kws/panes"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// newPane is the application's pane factory.
func (w *workstation) newPane(kind string) (panes.Pane, error) {
	role := ""
	if r, ok := strings.CutPrefix(kind, ui.KindAgent+":"); ok {
		kind, role = ui.KindAgent, r
	}
	switch kind {
	case ui.KindAgent:
		name := w.swarm.SpawnRole(role)
		p := panes.NewAgentPane(w.env, name, w.swarm, func(id string) { w.app.OpenBlock(id) })
		w.wireWorktree(p)
		return p, nil
	case ui.KindShell:
		return panes.NewShellPane(w.env, w.shell, func(kind string, text []byte) (string, error) {
			id, err := keep(w.vault, kind, "user", text)
			if err == nil {
				// Called on the UI goroutine: the vault pane shows it at once.
				w.vaultAt = time.Time{}
				w.refreshVault()
			}
			return id, err
		})
	case ui.KindVault:
		vp := panes.NewVaultPane(w.env, w.vault, w.inject)
		vp.SetSummarizer(w.sidecar.Summarize)
		return vp, nil
	case ui.KindBoard:
		return panes.NewBoardPane(w.env, w.board, w.swarm.Agents, func(agent, text string) error {
			return w.swarm.Message("", agent, text)
		}), nil
	case ui.KindMemory:
		if w.memory == nil {
			return nil, errors.New("memory is off (see DATA/kws.log)")
		}
		return panes.NewMemoryPane(w.env, w.memory, func(id string) { w.app.OpenBlock(id) }), nil
	case ui.KindStats:
		return panes.NewStatsPane(w.env, w.swarm.Agents), nil
	}
	return nil, fmt.Errorf("unknown pane kind %q", kind)
}

// inject sends a vault block to the agent whose pane had the focus last.
func (w *workstation) inject(id string) error {
	p, ok := w.app.Last(ui.KindAgent).(*panes.AgentPane)
	if !ok {
		return errors.New("no agent pane to give the block to (C-b a opens one)")
	}
	return w.swarm.Inject(p.Name(), id)
}

// newAgent is the swarm's agent factory: one session per agent, all on the
// one vault and the one permission broker.
func (w *workstation) newAgent(name string, onEvent func(agent.Event)) (swarm.Runner, error) {
	local, err := w.localModel()
	if err != nil {
		return nil, err
	}
	dir, err := w.agentWorkspace(name)
	if err != nil {
		return nil, err
	}
	spec := server.AgentSpec{Name: name, DataDir: w.g.dataDir, Workspace: w.ws, Dir: dir, Config: w.cfg,
		Overrides: w.overrides, Local: local, WrapClient: w.limiter.Client, Role: w.swarm.Role(name), Skills: w.skills,
		Params: w.params, Vault: w.vault, Broker: w.broker, Sandbox: w.sandbox.forWorktree(w.ws, dir),
		Router: w.sidecar, Critic: w.sidecar, OnEvent: onEvent,
		Board: w.board.For(name), Mailbox: w.swarm.Mailbox(name), Notices: w.swarm.Notices(name)}
	if w.memory != nil {
		spec.Memory = func(id string) server.Memory {
			return agentmem.New(agentmem.Config{Store: w.memory, Vault: w.vault, Workspace: w.ws, Dir: dir, Agent: name, Session: id,
				Engine: w.sidecar, Log: w.log})
		}
	}
	a, err := server.Build(spec)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.sessions = append(w.sessions, a.Session())
	w.mu.Unlock()
	w.log.Info("agent started", "agent", name, "session", a.Session().ID(), "model", w.cfg.Model)
	return a, nil
}
