package swarm

import (
	"context"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/agent/transcript"
)

// Resumer is a Runner that can finish a turn a crash or kill cut short,
// as *agent.Agent does: tool calls left without a result are answered
// "interrupted" and the loop goes on from the transcript. It reports
// false when the last turn was complete.
type Resumer interface {
	Resume(ctx context.Context) (answer string, resumed bool, err error)
}

// Sessioner is a Runner that records a session, as the composition
// root's assembled agent does; Info.Session is the session's id.
type Sessioner interface {
	Session() *transcript.Transcript
}

// SpawnResume is SpawnRole for an agent that continues session sessionID
// after kws restarted: the factory reads the id with ResumeSession and
// builds the agent on that session's transcript. When the runner is a
// Resumer, its first turn finishes the turn the restart cut short (a tool
// call left without a result is answered "interrupted"). The agent is
// called name when that is free, so that a restored pane keeps its
// agent's name; "" or a taken name gets the next free one.
func (s *Swarm) SpawnResume(role, name, sessionID string) string {
	s.mu.Lock()
	name = s.nameLocked(name)
	m := newMember(s, name)
	m.role, m.resume = role, sessionID
	s.members[name] = m
	s.order = append(s.order, name)
	stopped := s.stopped
	s.mu.Unlock()
	var r Runner
	err := ErrStopped
	if !stopped {
		r, err = s.cfg.Factory(name, m.onEvent)
	}
	if err != nil {
		m.offline(err)
	} else {
		_, resumer := r.(Resumer)
		m.mu.Lock()
		m.setRunnerLocked(r, sessionID != "")
		m.resumePending = resumer && sessionID != ""
		m.mu.Unlock()
		s.startLoop(m)
		m.wakeUp()
	}
	m.mu.Lock()
	m.publishLocked(Event{Type: EvSpawned, Agent: name, Info: m.infoLocked()})
	m.mu.Unlock()
	return name
}

// nameLocked returns want when it is a free name, else the next free
// agent-N; a free want of that form moves N past it. s.mu is held.
func (s *Swarm) nameLocked(want string) string {
	if want != "" && s.members[want] == nil {
		if n, err := strconv.Atoi(strings.TrimPrefix(want, "agent-")); err == nil && n > s.next {
			s.next = n
		}
		return want
	}
	for {
		s.next++
		if name := "agent-" + strconv.Itoa(s.next); s.members[name] == nil {
			return name
		}
	}
}

// ResumeSession returns the id of the session the agent is to continue,
// for the factory to build it on; "" for an agent that starts afresh.
// Restart clears it: a restarted agent starts a new session.
func (s *Swarm) ResumeSession(name string) string {
	m, err := s.member(name)
	if err != nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.resume
}

// SeedStats gives an agent the figures it had before kws restarted, so
// the stats pane and the status bar go on from them instead of zero. It
// does nothing once the agent has made a call of its own.
func (s *Swarm) SeedStats(name string, st Stats) error {
	m, err := s.member(name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stats.Calls == 0 {
		m.stats = st
		m.stats.Series = append([]Point(nil), st.Series...)
	}
	return nil
}
