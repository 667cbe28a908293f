package swarm

import (
	"context"
	"sync"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
)

// member is one agent: its runner, its queue of user turns and its state.
// One goroutine (loop) runs its turns in order.
//
// The member publishes its events while holding mu, so that every event
// carries the state it reports and events of one agent reach the bus in
// the order its state changed. The bus never blocks a publisher.
type member struct {
	s      *Swarm
	name   string
	role   string // set before the factory runs, never changed
	runner Runner
	// resume is the session the factory continues ("" for a new one);
	// resumePending is set until the loop has run the resumed turn.
	resume        string
	resumePending bool

	mu     sync.Mutex
	state  State
	detail string
	// turnStarted is when the running turn started.
	turnStarted time.Time
	err         error // why the member is offline
	queue       []queued
	injected    []queued
	stats       Stats
	// base is the runner's history when its latest turn started, log the
	// events of that turn (see Transcript); hist says the runner is a
	// Historian, resumed how many of base's messages a resumed session
	// brought.
	base    []provider.Message
	log     []Event
	hist    bool
	resumed int
	cancel  context.CancelFunc // cancels the running turn; nil between turns
	stopped bool               // quit is closed: no turn runs any more
	paused  bool               // queued turns wait until Resume
	looping bool               // the loop goroutine has been started
	removed bool               // EvRemoved is out: nothing more is published
	wake    chan struct{}
	quit    chan struct{}
}

// queued is a turn in the member's queue, or a vault block waiting for
// the next turn, with the event that announced it (EvMessage, EvInjected;
// nil for a turn queued by Send).
type queued struct {
	text string
	ev   *Event
}

func newMember(s *Swarm, name string) *member {
	return &member{s: s, name: name, state: StateIdle, wake: make(chan struct{}, 1), quit: make(chan struct{})}
}

// offline marks the member as having no model. Turns queued while its
// runner was being built are dropped: none of them can ever run.
func (m *member) offline(err error) {
	m.mu.Lock()
	m.state, m.detail, m.err = StateOffline, err.Error(), err
	m.queue = nil
	m.mu.Unlock()
}

func (m *member) info() Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.infoLocked()
}

// infoLocked returns the member's figures; m.mu is held.
func (m *member) infoLocked() Info {
	st := m.stats
	st.Series = append([]Point(nil), m.stats.Series...)
	in := Info{Name: m.name, State: m.state, Detail: m.detail, Queued: len(m.queue),
		Injected: len(m.injected), Paused: m.paused, Role: m.role, Stats: st}
	switch m.state {
	case StateThinking, StateTool, StateApproval:
		in.TurnStarted = m.turnStarted
	}
	if r, ok := m.runner.(Sessioner); ok && r.Session() != nil {
		in.Session = r.Session().ID()
	}
	return in
}

// publishLocked publishes e unless the member was removed, notes it in
// the transcript's log and returns it as published; m.mu is held.
func (m *member) publishLocked(e Event) Event {
	if m.removed {
		return e
	}
	e = m.s.bus.publish(e)
	m.logLocked(e)
	return e
}

// stateEventLocked publishes the member's current Info as EvState; m.mu is
// held.
func (m *member) stateEventLocked() {
	m.publishLocked(Event{Type: EvState, Agent: m.name, Info: m.infoLocked()})
}

// setStateLocked changes the state and publishes EvState when it changed;
// m.mu is held.
func (m *member) setStateLocked(st State, detail string) {
	if m.state == st && m.detail == detail {
		return
	}
	m.state, m.detail = st, detail
	m.stateEventLocked()
}

// offlineError is ErrOffline with the reason the agent has no model, read
// as one sentence ("agent offline: no model configured: …"), where
// errors.Join printed both lines run together.
type offlineError struct{ reason error }

func (e offlineError) Error() string {
	if e.reason == nil {
		return "swarm: agent offline: it has no model"
	}
	return "swarm: agent offline: " + e.reason.Error()
}

// Is makes errors.Is(err, ErrOffline) hold.
func (e offlineError) Is(target error) bool { return target == ErrOffline }

// Unwrap gives the reason.
func (e offlineError) Unwrap() error { return e.reason }

func (m *member) send(text string) error { return m.enqueue(text, nil) }

// enqueue queues text as a user turn. A non-nil ev is published with the
// member's figures just before the state event that counts the turn.
func (m *member) enqueue(text string, ev *Event) error {
	m.mu.Lock()
	if m.state == StateOffline {
		err := m.err
		m.mu.Unlock()
		return offlineError{err}
	}
	if m.stopped {
		m.mu.Unlock()
		return ErrStopped
	}
	m.queue = append(m.queue, queued{text: text})
	if ev != nil {
		e := *ev
		e.Info = m.infoLocked()
		e = m.publishLocked(e)
		m.queue[len(m.queue)-1].ev = &e
	}
	m.stateEventLocked()
	m.mu.Unlock()
	m.wakeUp()
	return nil
}

// wakeUp tells the loop there may be a turn to take.
func (m *member) wakeUp() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// inject attaches block (the exact vault block id) to the next turn and
// publishes EvInjected.
func (m *member) inject(id, block string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.injected = append(m.injected, queued{text: block})
	e := m.publishLocked(Event{Type: EvInjected, Agent: m.name, Text: id, Info: m.infoLocked()})
	m.injected[len(m.injected)-1].ev = &e
}

// onEvent receives the agent loop's events: it keeps the state and the
// figures and republishes the event.
//
// File touches are noted first, outside m.mu: a diff may be stored in the
// vault, and the agent's own goroutine keeps its events in order.
func (m *member) onEvent(e agent.Event) {
	m.s.touch.observe(m.name, e)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.account(e)
	switch e.Type {
	case agent.EvToolCall:
		m.setStateLocked(StateTool, e.Tool)
	case agent.EvPermission:
		// The broker has forgotten the request by now, so an approval
		// state set for it (see ask) is always replaced here.
		if e.Decision == "deny" {
			m.setStateLocked(StateThinking, "")
		} else {
			m.setStateLocked(StateTool, e.Tool)
		}
	case agent.EvToolResult, agent.EvTextDelta:
		m.setStateLocked(StateThinking, "")
	}
	m.publishLocked(Event{Type: EvAgent, Agent: m.name, Loop: e})
}

// ask shows that the member waits for the user to approve req and
// publishes EvAsk, unless the request is no longer pending (answered,
// given up or cancelled before the swarm saw it): the agent has moved on,
// and its own events say so.
func (m *member) ask(req *permission.Request, pending func(id string) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.removed || !pending(req.ID) {
		return
	}
	m.setStateLocked(StateApproval, "")
	m.publishLocked(Event{Type: EvAsk, Agent: m.name, Request: req})
}

// cancelTurn cancels the running turn and drops the queued ones.
func (m *member) cancelTurn() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cancelLocked()
}

// cancelLocked is cancelTurn with m.mu held.
func (m *member) cancelLocked() {
	dropped := len(m.queue) > 0
	m.queue = nil
	if m.cancel != nil {
		m.cancel()
	}
	if dropped {
		m.stateEventLocked()
	}
}

// stop ends the member's loop: the running turn is cancelled, the queued
// ones are dropped and later sends fail with ErrStopped.
func (m *member) stop() {
	m.mu.Lock()
	if !m.stopped {
		m.stopped = true
		close(m.quit)
	}
	m.cancelLocked()
	r := m.runner
	m.mu.Unlock()
	endRunner(r, "other")
}

// JobRunner is a runner with background jobs and hooks (*agent.Agent is
// one): the user stops its jobs (StopJobs), and they end with the runner,
// whose SessionEnd hooks then run (End, with Claude Code's reason).
type JobRunner interface {
	StopJobs() int
	End(reason string)
}

// endRunner ends r for reason, if it is a JobRunner. m.mu must not be held: a
// job's end and a hook's note are events the member publishes.
func endRunner(r Runner, reason string) {
	if j, ok := r.(JobRunner); ok {
		j.End(reason)
	}
}

// remove stops the member and publishes EvRemoved, its last event.
func (m *member) remove() {
	m.stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.publishLocked(Event{Type: EvRemoved, Agent: m.name})
	m.removed = true
}
