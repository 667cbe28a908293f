package swarm

import (
	"fmt"
	"sort"

	"github.com/kwsdev/kws/agent/permission"
)

// Answer replies to a permission request. The agent's state follows from
// its own loop: the permission event it publishes once it has the answer.
func (s *Swarm) Answer(id string, a permission.Answer) error {
	if s.cfg.Broker == nil {
		return permission.ErrNotPending
	}
	return s.cfg.Broker.Answer(id, a)
}

// Pending returns the permission requests waiting for an answer.
func (s *Swarm) Pending() []permission.Request {
	if s.cfg.Broker == nil {
		return nil
	}
	return s.cfg.Broker.Pending()
}

// pending reports whether the broker still waits for an answer to id.
func (s *Swarm) pending(id string) bool {
	for _, r := range s.cfg.Broker.Pending() {
		if r.ID == id {
			return true
		}
	}
	return false
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
