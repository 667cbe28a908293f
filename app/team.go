package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/team"
)

// teamEvery is how often a member looks at its agents for the team's
// list; only changes are sent, and everything every agentsEvery.
const teamEvery = 2 * time.Second

// StartTeam makes the server a member of the data dir's team, when it is
// in one (DATA/team.json): its node joins the team's cluster, its vault's
// blocks and its agents are shared, and the sessions opened from now on
// use the team's board. It does nothing outside a team.
func (st *Stores) StartTeam() error {
	st.mu.Lock()
	running := st.team != nil
	st.mu.Unlock()
	if running {
		return nil
	}
	o := team.Options{Vault: st.vault, Deliver: st.deliverFromTeam, Log: st.log}
	if st.memory != nil {
		o.Memory = st.memory
	}
	t, err := team.Open(st.opts.DataDir, o)
	if errors.Is(err, team.ErrNoTeam) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.mu.Lock()
	st.team, st.teamStop = t, cancel
	st.mu.Unlock()
	st.log.Info("team: member", "team", t.Config().Name(), "member", t.Config().Member, "listen", t.Node().Addr())
	go st.followTeam(ctx, t)
	return nil
}

// StopTeam stops the server's membership for now (kws team leave ends
// it): the sessions keep their boards until they close.
func (st *Stores) StopTeam() {
	st.mu.Lock()
	t, stop := st.team, st.teamStop
	st.team, st.teamStop = nil, nil
	st.mu.Unlock()
	if t != nil {
		stop()
		t.Close()
	}
}

// Team is the server's team membership; nil outside a team.
func (st *Stores) Team() *team.Team {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.team
}

// BoardStore is where a new session, and the board's commands, keep the
// board: the team's in a team, else the vault.
func (st *Stores) BoardStore() swarm.BoardStore {
	if t := st.Team(); t != nil {
		return t
	}
	return st.vault
}

// followTeam tells the team of this member's agents and the panes of the
// board's changes, until ctx ends.
func (st *Stores) followTeam(ctx context.Context, t *team.Team) {
	select {
	case <-ctx.Done():
		return
	case <-t.Ready():
	}
	agents, err := t.Agents()
	if err != nil {
		return
	}
	tick := time.NewTicker(teamEvery)
	defer tick.Stop()
	var last time.Time
	for {
		refresh := time.Since(last) >= 10*time.Second
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := agents.Publish(pctx, st.localAgents(), refresh); err != nil {
			st.log.Warn("team: publish the agents", "error", err)
		} else if refresh {
			last = time.Now()
		}
		if list, err := agents.List(pctx); err == nil {
			others := slices.DeleteFunc(list, func(a team.AgentState) bool { return a.Member == t.Config().Member })
			same := func(a, b team.AgentState) bool {
				return a.Member == b.Member && a.Session == b.Session && a.Agent == b.Agent && a.State == b.State
			}
			if old := st.teamAgents.Swap(&others); old == nil || !slices.EqualFunc(*old, others, same) {
				st.Changed()
			}
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.Changed():
			st.Changed()
		case <-tick.C:
		}
	}
}

// TeamAgents are the agents of the team's other members, as last heard
// (every teamEvery); none outside a team.
func (st *Stores) TeamAgents() []team.AgentState {
	if p := st.teamAgents.Load(); p != nil && st.Team() != nil {
		return *p
	}
	return nil
}

// localAgents are the agents of every session of these stores.
func (st *Stores) localAgents() []team.AgentState {
	var out []team.AgentState
	for _, o := range st.Owners() {
		out = append(out, team.AgentState{Session: o.Session, Agent: o.Agent, State: o.State})
	}
	return out
}

// deliverFromTeam hands a message from another member to the local agent
// to, in the first session (by name) that has one so called.
func (st *Stores) deliverFromTeam(from, to, text string) error {
	st.mu.Lock()
	type open struct {
		name string
		w    *Workstation
	}
	var ws []open
	for w, name := range st.open {
		ws = append(ws, open{name, w})
	}
	st.mu.Unlock()
	slices.SortFunc(ws, func(a, b open) int { return strings.Compare(a.name, b.name) })
	for _, o := range ws {
		if o.w.swarm == nil {
			continue
		}
		if _, err := o.w.swarm.Info(to); err == nil {
			return o.w.swarm.Message(from, to, text)
		}
	}
	return fmt.Errorf("no agent %s here", to)
}

// sendToTeam carries a message from the local agent from to agent on
// member (swarm.Config.Remote).
func (st *Stores) sendToTeam(from, agent, member, text string) error {
	t := st.Team()
	if t == nil {
		return fmt.Errorf("%w: %s@%s (this kws server is in no team)", swarm.ErrNoAgent, agent, member)
	}
	a, err := t.Agents()
	if err != nil {
		return err
	}
	return a.Send(from, agent, member, text)
}

// boardAgents are the agents the board pane lists: this session's, then
// the team's other members' (NAME@MEMBER, which a message reaches).
func (w *Workstation) boardAgents() []swarm.Info {
	list := w.swarm.Agents()
	for _, a := range w.st.TeamAgents() {
		list = append(list, swarm.Info{Name: a.Agent + "@" + a.Member, State: swarm.State(a.State), Detail: "session " + a.Session})
	}
	return list
}
