// Package swarm runs the workstation's agents: it spawns them on demand,
// runs their turns one at a time per agent and several agents in parallel,
// tracks each agent's state from its own loop, carries permission requests
// from the shared broker, and publishes typed events, the only way panes
// learn about agents. Every agent shares the one vault.
package swarm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
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
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	members map[string]*member
	order   []string
	next    int
	pending map[string]permission.Request
}

// New returns a swarm; Start begins carrying permission requests.
func New(cfg Config) *Swarm {
	ctx, cancel := context.WithCancel(context.Background())
	return &Swarm{cfg: cfg, bus: newBus(), ctx: ctx, cancel: cancel,
		members: map[string]*member{}, pending: map[string]permission.Request{}}
}

// Start forwards the broker's permission requests as EvAsk events until
// Stop.
func (s *Swarm) Start() {
	if s.cfg.Broker == nil {
		return
	}
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
				s.pending[r.ID] = r
				m := s.members[r.Agent]
				s.mu.Unlock()
				if m != nil {
					m.setState(StateApproval, "")
				}
				req := r
				s.bus.publish(Event{Type: EvAsk, Agent: r.Agent, Request: &req})
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
// that ends the subscription.
func (s *Swarm) Subscribe() (<-chan Event, func()) { return s.bus.subscribe() }

// Spawn starts a new agent and returns its name (agent-1, agent-2, …). When
// the factory fails the agent still exists, offline, with the reason as its
// error, so its pane can say what to set.
func (s *Swarm) Spawn() string {
	s.mu.Lock()
	s.next++
	name := "agent-" + strconv.Itoa(s.next)
	m := newMember(s, name)
	s.members[name] = m
	s.order = append(s.order, name)
	s.mu.Unlock()
	r, err := s.cfg.Factory(name, m.onEvent)
	if err != nil {
		m.offline(err)
	} else {
		m.runner = r
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			m.loop(s.ctx)
		}()
	}
	s.bus.publish(Event{Type: EvSpawned, Agent: name, Info: m.info()})
	return name
}

// Send queues a user turn for the agent; it runs after the turns before it.
func (s *Swarm) Send(name, text string) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	return m.send(text)
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
	m.inject(diet.FormatExact(meta.ID, data))
	s.bus.publish(Event{Type: EvInjected, Agent: name, Text: meta.ID, Info: m.info()})
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
		m.stop()
		s.bus.publish(Event{Type: EvRemoved, Agent: name})
	}
}

// Answer replies to a permission request.
func (s *Swarm) Answer(id string, a permission.Answer) error {
	if s.cfg.Broker == nil {
		return permission.ErrNotPending
	}
	s.mu.Lock()
	req, ok := s.pending[id]
	delete(s.pending, id)
	m := s.members[req.Agent]
	s.mu.Unlock()
	if err := s.cfg.Broker.Answer(id, a); err != nil {
		return err
	}
	if ok && m != nil {
		m.setState(StateTool, req.Tool)
	}
	return nil
}

// Pending returns the permission requests waiting for an answer.
func (s *Swarm) Pending() []permission.Request {
	if s.cfg.Broker == nil {
		return nil
	}
	return s.cfg.Broker.Pending()
}

// Agents returns every agent's current figures in spawn order.
func (s *Swarm) Agents() []Info {
	s.mu.Lock()
	ms := make([]*member, 0, len(s.order))
	for _, n := range s.order {
		ms = append(ms, s.members[n])
	}
	s.mu.Unlock()
	out := make([]Info, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.info())
	}
	return out
}

// Busy reports whether any agent is running a turn or has one queued.
func (s *Swarm) Busy() bool {
	for _, in := range s.Agents() {
		if in.Busy() {
			return true
		}
	}
	return false
}

// Info returns one agent's figures.
func (s *Swarm) Info(name string) (Info, error) {
	m, err := s.member(name)
	if err != nil {
		return Info{}, err
	}
	return m.info(), nil
}

func (s *Swarm) member(name string) (*member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.members[name]; m != nil {
		return m, nil
	}
	names := append([]string(nil), s.order...)
	sort.Strings(names)
	return nil, fmt.Errorf("%w: %q (agents: %v)", ErrNoAgent, name, names)
}
