package swarm

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/kwsdev/kws/agent"
)

// member is one agent: its runner, its queue of user turns and its state.
// One goroutine (loop) runs its turns in order.
type member struct {
	s      *Swarm
	name   string
	runner Runner

	mu       sync.Mutex
	state    State
	detail   string
	queue    []string
	injected []string
	stats    Stats
	cancel   context.CancelFunc
	wake     chan struct{}
	quit     chan struct{}
	quitOnce sync.Once
}

func newMember(s *Swarm, name string) *member {
	return &member{s: s, name: name, state: StateIdle, wake: make(chan struct{}, 1), quit: make(chan struct{})}
}

func (m *member) offline(err error) {
	m.mu.Lock()
	m.state, m.detail = StateOffline, err.Error()
	m.mu.Unlock()
}

func (m *member) info() Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.stats
	st.Series = append([]Point(nil), m.stats.Series...)
	return Info{Name: m.name, State: m.state, Detail: m.detail, Queued: len(m.queue),
		Injected: len(m.injected), Stats: st}
}

func (m *member) setState(st State, detail string) {
	m.mu.Lock()
	changed := m.state != st || m.detail != detail
	m.state, m.detail = st, detail
	m.mu.Unlock()
	if changed {
		m.s.bus.publish(Event{Type: EvState, Agent: m.name, Info: m.info()})
	}
}

func (m *member) send(text string) error {
	m.mu.Lock()
	if m.state == StateOffline {
		reason := m.detail
		m.mu.Unlock()
		return errors.Join(ErrOffline, errors.New(reason))
	}
	m.queue = append(m.queue, text)
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
	m.s.bus.publish(Event{Type: EvState, Agent: m.name, Info: m.info()})
	return nil
}

func (m *member) inject(block string) {
	m.mu.Lock()
	m.injected = append(m.injected, block)
	m.mu.Unlock()
}

// next takes the first queued turn with the injected blocks in front of it.
func (m *member) next() (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.queue) == 0 {
		return "", false
	}
	text := m.queue[0]
	m.queue = m.queue[1:]
	if len(m.injected) > 0 {
		text = strings.Join(m.injected, "\n\n") + "\n\n" + text
		m.injected = nil
	}
	return text, true
}

// loop runs queued turns until the swarm stops or the member is removed.
func (m *member) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.quit:
			return
		case <-m.wake:
		}
		for {
			text, ok := m.next()
			if !ok {
				break
			}
			m.turn(ctx, text)
			select {
			case <-ctx.Done():
				return
			case <-m.quit:
				return
			default:
			}
		}
	}
}

func (m *member) turn(parent context.Context, text string) {
	ctx, cancel := context.WithCancel(parent)
	m.mu.Lock()
	m.cancel = cancel
	m.mu.Unlock()
	defer func() {
		cancel()
		m.mu.Lock()
		m.cancel = nil
		m.mu.Unlock()
	}()
	m.s.bus.publish(Event{Type: EvTurn, Agent: m.name, Text: text})
	m.setState(StateThinking, "")
	answer, err := m.runner.Run(ctx, text)
	fin := Event{Type: EvFinished, Agent: m.name, Text: answer}
	switch {
	case err == nil:
		m.setState(StateIdle, "")
	case errors.Is(err, context.Canceled):
		fin.Err = "cancelled"
		m.setState(StateIdle, "")
	default:
		fin.Err = err.Error()
		m.setState(StateError, err.Error())
	}
	fin.Info = m.info()
	m.s.bus.publish(fin)
}

// onEvent receives the agent loop's events: it keeps the state and the
// figures and republishes the event.
func (m *member) onEvent(e agent.Event) {
	m.mu.Lock()
	m.stats.account(e)
	m.mu.Unlock()
	switch e.Type {
	case agent.EvToolCall:
		m.setState(StateTool, e.Tool)
	case agent.EvToolResult, agent.EvTextDelta:
		m.setState(StateThinking, "")
	}
	m.s.bus.publish(Event{Type: EvAgent, Agent: m.name, Loop: e})
}

func (m *member) cancelTurn() {
	m.mu.Lock()
	m.queue = nil
	cancel := m.cancel
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (m *member) stop() {
	m.quitOnce.Do(func() { close(m.quit) })
	m.cancelTurn()
}
