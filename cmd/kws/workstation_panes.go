package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/session"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/panes"
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
	client, model, prof, err := w.client()
	if err != nil {
		return nil, err
	}
	dir, err := w.agentWorkspace(name)
	if err != nil {
		return nil, err
	}
	sess, err := session.Create(w.g.dataDir, w.ws)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.sessions = append(w.sessions, sess)
	w.mu.Unlock()
	policy := permission.DefaultPolicy()
	// A prefix is only as safe as the sandbox behind it: unconfined,
	// every shell command asks.
	policy.Workspace, policy.Unsandboxed = dir, w.sandbox.Policy == nil
	if err := policy.Apply(w.cfg.Permissions, w.cfg.ShellAllow); err != nil {
		return nil, err
	}
	w.log.Info("agent started", "agent", name, "session", sess.ID(), "model", w.cfg.Model)
	sections := []string{skill.ModelList(w.skills)}
	if role, ok := skill.Find(skill.Roles(w.skills), w.swarm.Role(name)); ok {
		// The role's prompt joins the system prompt; its model, when it
		// names one, replaces the configured model on the same endpoint.
		sections = append(sections, "# Your role: "+role.Name+"\n\n"+role.Body)
		if role.Model != "" && w.cfgErr == nil {
			if client, err = provider.New(provider.Config{BaseURL: w.cfg.BaseURL, APIKey: w.cfg.APIKey, Model: role.Model,
				Timeout: w.prof.Timeout.Duration(), NativeTools: w.prof.ToolCalls && w.prof.Envelope != "text"}); err != nil {
				return nil, err
			}
			client, model = w.limiter.Client(client), role.Model
		}
	}
	cfg := agent.Config{Name: name, Workspace: dir, Client: client, Model: model, Profile: prof,
		Diet: w.params, Vault: w.vault, Recorder: agent.SessionRecorder(sess), Policy: policy, Broker: w.broker,
		SystemPrompt: agent.SystemPromptWith(sections...), OnEvent: onEvent,
		HideEnv: nonEmpty(w.cfg.APIKeyEnv), Router: w.sidecar, Critic: w.sidecar, Sandbox: w.sandbox.forWorktree(w.ws, dir),
		Board: w.board.For(name), Mailbox: w.swarm.Mailbox(name), Notices: w.swarm.Notices(name)}
	if w.memory != nil {
		mem := newAgentMemory(w.memory, w.vault, w.ws, dir, name, sess.ID(), w.sidecar, w.log)
		cfg.Memory, cfg.OnEvent = mem, mem.Watch(onEvent)
	}
	return agent.New(cfg)
}
