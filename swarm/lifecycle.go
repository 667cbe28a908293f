package swarm

import "fmt"

// Pause holds the agent's queued turns until Resume; a running turn
// finishes first.
func (s *Swarm) Pause(name string) error {
	return s.setPaused(name, true)
}

// Resume lets the agent take its queued turns again.
func (s *Swarm) Resume(name string) error {
	return s.setPaused(name, false)
}

func (s *Swarm) setPaused(name string, paused bool) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	changed := m.paused != paused
	m.paused = paused
	if changed {
		m.stateEventLocked()
	}
	m.mu.Unlock()
	if !paused {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// Restart gives the agent a fresh start: its running turn is cancelled,
// its queue dropped, and the factory builds it anew (a new session with an
// empty history); its figures carry on. An offline agent gets another try
// at its model.
func (s *Swarm) Restart(name string) error { return s.restart(name, "", "clear") }

// RestartOn restarts the agent as Restart does, on the session given: the
// fork a /rewind of the conversation made, which it continues.
func (s *Swarm) RestartOn(name, session string) error { return s.restart(name, session, "other") }

// restart rebuilds the agent on session ("" for a new one); reason is what
// the old session's SessionEnd hooks hear.
func (s *Swarm) restart(name, session, reason string) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	m.cancelTurn()
	if s.cfg.Broker != nil {
		// A grant "for the session" ends with the session.
		s.cfg.Broker.Revoke(name)
	}
	m.mu.Lock()
	m.resume, m.resumePending = session, false
	m.mu.Unlock()
	r, ferr := s.cfg.Factory(name, m.onEvent)
	m.mu.Lock()
	if ferr != nil {
		m.state, m.detail, m.err = StateOffline, ferr.Error(), ferr
		m.stateEventLocked()
		m.mu.Unlock()
		return fmt.Errorf("swarm: restart %s: %w", name, ferr)
	}
	old := m.runner
	m.setRunnerLocked(r, false)
	m.state, m.detail, m.err, m.paused = StateIdle, "", nil, false
	m.stateEventLocked()
	m.mu.Unlock()
	// The old session's jobs end with it, and its hooks hear that a
	// fresh one replaced it.
	endRunner(old, reason)
	s.startLoop(m)
	return nil
}
