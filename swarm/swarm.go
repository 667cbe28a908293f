// Package swarm runs the workstation's agents: it spawns them on demand,
// runs their turns one at a time per agent and several agents in parallel,
// tracks each agent's state from its own loop, carries permission requests
// from the shared broker, and publishes typed events, the only way panes
// learn about agents. Every agent shares the one vault.
package swarm

import (
	"context"
	"errors"
	"sync"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/vault"
)

// Runner is one agent as the swarm drives it; *agent.Agent is one.
type Runner interface {
	Run(ctx context.Context, task string) (string, error)
	Totals() agent.Totals
}

// Factory builds the agent called name, whose events go to onEvent. It
// fails when no model is configured or reachable; the error text tells the
// user what to set, and the swarm keeps the agent as StateOffline.
type Factory func(name string, onEvent func(agent.Event)) (Runner, error)

// Vault is what the swarm needs of the vault: exact blocks to inject.
type Vault interface {
	Get(id string) ([]byte, error)
	Meta(id string) (vault.Meta, error)
}

// Config wires a swarm.
type Config struct {
	Factory Factory
	Vault   Vault
	// Broker is the interactive permission broker every agent asks.
	Broker *permission.Broker
	// Dir returns the directory an agent works in ("" when unknown). With
	// it, file-touch notices also cover a file an agent read that then
	// changed on disk by other means (a shell command, the user's
	// editor), and an edit is reported only to readers in the editor's
	// directory. Nil keeps notices to what the file tools report.
	Dir func(agent string) string
	// Skills are what a user's "/name args" turn invokes (see
	// skill.ExpandInput).
	Skills []skill.Skill
	// Remote carries a message to an agent of another kws server of the
	// team, addressed NAME@MEMBER; nil refuses such addresses.
	Remote func(from, agent, member, text string) error
}

// Errors callers can test with errors.Is.
var (
	ErrNoAgent = errors.New("swarm: no such agent")
	ErrOffline = errors.New("swarm: the agent has no model")
	ErrStopped = errors.New("swarm: stopped")
)

// Swarm owns the agents.
type Swarm struct {
	cfg    Config
	bus    *bus
	touch  *touches
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	members map[string]*member
	order   []string
	next    int
	started bool
	stopped bool
}

// New returns a swarm; Start begins carrying permission requests.
func New(cfg Config) *Swarm {
	ctx, cancel := context.WithCancel(context.Background())
	return &Swarm{cfg: cfg, bus: newBus(), touch: newTouches(cfg.Vault, cfg.Dir), ctx: ctx, cancel: cancel,
		members: map[string]*member{}}
}

// Start forwards the broker's permission requests as EvAsk events until
// Stop. Calls after the first, or after Stop, do nothing.
func (s *Swarm) Start() {
	if s.cfg.Broker == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return
	}
	s.started = true
	reqs := s.cfg.Broker.Subscribe()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case r, ok := <-reqs:
				if !ok {
					return
				}
				s.mu.Lock()
				m := s.members[r.Agent]
				s.mu.Unlock()
				req := r
				switch {
				case m != nil:
					m.ask(&req, s.pending)
				case s.pending(r.ID):
					// An asker the swarm does not run.
					s.bus.publish(Event{Type: EvAsk, Agent: r.Agent, Request: &req})
				}
			case <-s.ctx.Done():
				s.cfg.Broker.Unsubscribe(reqs)
				return
			}
		}
	}()
}

// Stop cancels every running turn, waits for the agents and closes every
// subscription.
func (s *Swarm) Stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.cancel()
	s.mu.Lock()
	ms := make([]*member, 0, len(s.members))
	for _, m := range s.members {
		ms = append(ms, m)
	}
	s.mu.Unlock()
	for _, m := range ms {
		m.stop()
	}
	s.wg.Wait()
	s.bus.closeAll()
}

// Subscribe returns a channel of every event from now on and a function
// that ends the subscription. After Stop the channel is closed at once.
func (s *Swarm) Subscribe() (<-chan Event, func()) { return s.bus.subscribe() }

// Spawn starts a new agent and returns its name (agent-1, agent-2, …). When
// the factory fails the agent still exists, offline, with the reason as its
// error, so its pane can say what to set. After Stop the agent is offline
// with ErrStopped.
func (s *Swarm) Spawn() string { return s.SpawnRole("") }

// SpawnRole is Spawn for an agent with a role (planner, coder, …); the
// factory reads it with Role.
func (s *Swarm) SpawnRole(role string) string { return s.SpawnResume(role, "", "") }

// Role returns the role the agent was spawned with ("" for none).
func (s *Swarm) Role(name string) string {
	m, err := s.member(name)
	if err != nil {
		return ""
	}
	return m.role
}

// startLoop starts the member's loop once. The loop is counted under s.mu
// so that Stop, which sets stopped under s.mu before it waits, never races
// this Add.
func (s *Swarm) startLoop(m *member) {
	m.mu.Lock()
	started := m.looping
	m.looping = true
	m.mu.Unlock()
	if started {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			m.loop(s.ctx)
		}()
	}
}

// Send queues a user turn for the agent; it runs after the turns before
// it. A /context or /compact line is answered by the agent itself in its
// turn (EvCommand), and refused with ErrNoCommands by a runner that is
// not a Controller. A "/name args" turn naming a skill runs as the skill invoked with
// args, as in kws run, while EvTurn shows it as typed; a skill the user
// may not invoke is refused with an error wrapping
// skill.ErrNotUserInvocable, and nothing is queued.
func (s *Swarm) Send(name, text string) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	if c, ok := agent.IsCommand(text); ok {
		if err := m.checkCommand(c); err != nil {
			return err
		}
	} else if _, err := skill.ExpandInput(s.cfg.Skills, text); err != nil {
		return err
	}
	return m.send(text)
}

// prompt is what the agent runs for text, a turn Send queued: the skill
// a "/name args" line invokes, expanded, or text itself. Send refused the
// lines that cannot expand, and the skills never change, so an error
// cannot happen here; text stands in if it does.
func (s *Swarm) prompt(text string) string {
	p, err := skill.ExpandInput(s.cfg.Skills, text)
	if err != nil {
		return text
	}
	return p
}

// Inject attaches the exact vault block id to the agent's next user turn.
func (s *Swarm) Inject(name, id string) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	data, err := s.cfg.Vault.Get(id)
	if err != nil {
		return err
	}
	meta, err := s.cfg.Vault.Meta(id)
	if err != nil {
		return err
	}
	m.inject(meta.ID, diet.FormatExact(meta.ID, data))
	return nil
}

// Cancel stops the agent's running turn and drops its queued ones.
func (s *Swarm) Cancel(name string) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	m.cancelTurn()
	return nil
}

// StopJobs stops the agent's running background jobs at once, whatever
// its turn is doing, and returns how many it stopped.
func (s *Swarm) StopJobs(name string) (int, error) {
	m, err := s.member(name)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	r := m.runner
	m.mu.Unlock()
	j, ok := r.(JobRunner)
	if !ok {
		return 0, nil
	}
	return j.StopJobs(), nil
}

// Commands are the command lines a user may type in an agent's pane:
// the built-in commands, then /NAME for each skill a user may invoke.
func (s *Swarm) Commands() []string {
	var out []string
	for _, c := range agent.Commands(s.cfg.Skills) {
		out = append(out, c[0])
	}
	return out
}

// Remove cancels the agent and forgets it.
func (s *Swarm) Remove(name string) {
	s.mu.Lock()
	m := s.members[name]
	delete(s.members, name)
	for i, n := range s.order {
		if n == name {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if m != nil {
		m.remove()
	}
	s.touch.forget(name)
}
