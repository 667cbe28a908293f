package swarm

import (
	"slices"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/provider"
)

// Historian is a Runner that can give its transcript, as *agent.Agent
// does: every message of its conversation so far, oldest first, resumed
// ones included. The swarm asks only while the runner runs no turn.
type Historian interface {
	History() []provider.Message
}

// Transcript is an agent's conversation so far, for a pane that opens on
// an agent that already has one, such as an agent that resumed its session
// after kws restarted. It covers every event of the agent up to Seq and
// none after: a listener that shows the transcript and then skips the
// agent's events numbered Seq or lower shows each thing once, even while
// a turn runs.
type Transcript struct {
	// Messages is the runner's history when its latest turn started, or
	// when the runner was built if it has run no turn yet.
	Messages []provider.Message
	// Resumed counts the leading Messages that came from the resumed
	// session; 0 for an agent that started afresh.
	Resumed int
	// Session is the id of the session the agent resumed ("" for none).
	Session string
	// Events are what happened since Messages was taken, in order: the
	// latest turn's EvTurn (absent for a resumed turn), loop events (with
	// consecutive text deltas joined into one, and no figures), EvAsk and
	// EvFinished; then the EvMessage of each message still queued and the
	// EvInjected of each block still waiting for the next turn.
	Events []Event
	// Seq is the Seq of the last event published when the transcript was
	// taken.
	Seq uint64
}

// Transcript returns the agent's conversation so far. It is empty, with
// Seq 0, when the agent's runner is not a Historian (or the agent is
// offline): then every event is new to the caller.
func (s *Swarm) Transcript(name string) (Transcript, error) {
	m, err := s.member(name)
	if err != nil {
		return Transcript{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.hist {
		return Transcript{}, nil
	}
	t := Transcript{Messages: slices.Clone(m.base), Resumed: m.resumed, Events: slices.Clone(m.log),
		Seq: s.bus.last()}
	if m.resumed > 0 {
		t.Session = m.resume
	}
	for _, q := range append(slices.Clone(m.queue), m.injected...) {
		if q.ev != nil {
			t.Events = append(t.Events, *q.ev)
		}
	}
	return t, nil
}

// setRunnerLocked makes r the member's runner and starts the transcript
// from r's history, which is a resumed session's when resumed is set; m.mu
// is held and r runs no turn.
func (m *member) setRunnerLocked(r Runner, resumed bool) {
	m.runner = r
	m.resetTranscriptLocked()
	m.resumed = 0
	if resumed {
		m.resumed = len(m.base)
	}
}

// resetTranscriptLocked takes the runner's history as the transcript's
// base and empties its log; m.mu is held and the runner runs no turn.
func (m *member) resetTranscriptLocked() {
	h, ok := m.runner.(Historian)
	m.hist, m.base, m.log = ok, nil, nil
	if ok {
		m.base = h.History()
	}
}

// logLocked notes a published event in the transcript's log when a
// transcript shows it. Queued messages and injected blocks are not logged:
// Transcript lists them while they wait. m.mu is held.
func (m *member) logLocked(e Event) {
	if !m.hist || e.routine() {
		return
	}
	switch e.Type {
	case EvTurn, EvAsk, EvFinished, EvCommand:
	case EvAgent:
		if n := len(m.log); n > 0 && e.Loop.Type == agent.EvTextDelta && !e.Loop.Restart {
			if last := &m.log[n-1]; last.Type == EvAgent && last.Loop.Type == agent.EvTextDelta {
				last.Loop.Text += e.Loop.Text
				return
			}
		}
	default:
		return
	}
	m.log = append(m.log, e)
}
